import Foundation
import SeedInstall

/// Who a build's base release must be signed by: the nightly job holds the signing key, so what it
/// builds on (object numbers, the deltas it composes) ends up signed for every device, and is checked
/// as strictly as a device checks a release.
///
/// The keys are the public key of the build's own signing key (`--sign-key`, `SEEDBUILD_SIGN_KEY`)
/// and any trusted key (`--trusted-key`, `trustedKeys` in seedbuild.json), so that a channel signed
/// by an earlier key can be followed while keys are rotated. When the build has any key, its base
/// must come with a manifest signed by one of them; a build with none (an unsigned channel) may
/// follow an unsigned base.
public struct BaseTrust: Sendable {
    /// The keys a base's manifest may be signed by.
    public var keys: [TrustedKey] = []
    /// The key id the build signs with, for messages.
    public var signingKeyID: String?
    /// Follows an unsigned base although the build has keys (`--allow-unsigned-base`): once, for the
    /// first signed release of a channel that was unsigned until now. A base signed by a key not
    /// trusted is refused all the same.
    public var allowsUnsignedBase = false

    public init(keys: [TrustedKey] = [], signingKeyID: String? = nil, allowsUnsignedBase: Bool = false) {
        self.keys = keys
        self.signingKeyID = signingKeyID
        self.allowsUnsignedBase = allowsUnsignedBase
    }

    /// The trust of a build that signs with `signingKey` (if any) and trusts `trusted` besides.
    public init(signingKey: SigningKey?, trusted: [TrustedKey]) {
        var keys = signingKey.map { [$0.publicKey] } ?? []
        for key in trusted where !keys.contains(key) { keys.append(key) }
        self.init(keys: keys, signingKeyID: signingKey?.publicKey.keyID)
    }

    /// Whether the base must be signed: the build has a key.
    public var requiresSignature: Bool { !keys.isEmpty }

    /// Checks the base's manifest against the keys.
    /// - Returns: the id of the trusted key it is signed by; nil for an unsigned base of an unsigned build.
    /// - Throws: ``IngestError`` (exit 65) naming the base, the key it is signed by (if any) and the
    ///   keys trusted, when the build has keys and none of them signed it.
    func check(_ manifest: Manifest, at location: String) throws(IngestError) -> String? {
        guard requiresSignature else { return nil }
        if let key = keys.first(where: { $0.verify(manifest) }) { return key.keyID }
        if allowsUnsignedBase, manifest.signatureKeyID == nil, manifest.values["signature"] == nil { return nil }
        let trusted = keys.map(\.keyID).joined(separator: ", ")
        let signed = manifest.signatureKeyID.map { "is signed by key \($0), which is not trusted or does not verify" } ?? "is not signed"
        throw IngestError(
            .badData, file: location,
            "the base release \(signed); this build \(signingKeyID.map { "signs with key \($0) and " } ?? "")trusts keys \(trusted), so it follows only a base signed by one of them. Give the key that signed the channel with --trusted-key (a rotated key), fix the channel, pass --allow-unsigned-base once to sign a channel that was unsigned until now, or build with --no-base to number every object afresh"
        )
    }

    /// Refuses a base that comes without a manifest (a bare store or artifact) when the build has keys:
    /// nothing vouches for its numbers.
    func checkUnsigned(at location: String) throws(IngestError) {
        guard requiresSignature, !allowsUnsignedBase else { return }
        throw IngestError(
            .badData, file: location,
            "a bare store or artifact cannot be verified, and this build has keys (\(keys.map(\.keyID).joined(separator: ", "))): give the release's signed manifest.json or its channel as --base, --allow-unsigned-base to follow it unverified, or --no-base to number every object afresh"
        )
    }
}
