import Foundation
import SeedModel
import SeedStore

/// Keeping a release installable: a nightly job on unchanged data uploads no artifact, but replaces
/// the published manifest (new expiry, new signature, `latest.json` last) when apps would soon refuse
/// it, or when it is signed differently from this build's.
extension Publisher {
    enum RefreshDecision: Equatable {
        /// Nothing to do; the reason is set when a refresh was due but this build's manifest is no better.
        case none(String?)
        case refresh(String)
    }

    /// Whether this build's manifest should replace the published one of the same content.
    ///
    /// Due when the published manifest is past half its lifetime (`expires - issued`), is unreadable or
    /// has no expiry, or is signed by another key (or not at all). A due refresh happens only when this
    /// build's manifest improves on it: it expires later, or it carries the wanted signature.
    func refreshDecision(local: Manifest, published: Manifest?) -> RefreshDecision {
        let now = now()
        let fmt = ISO8601DateFormatter()
        guard let published, let expires = published.expires else {
            return .refresh("the published manifest is missing or has no expiry")
        }
        if published.signatureKeyID != local.signatureKeyID {
            let was = published.signatureKeyID.map { "signed by key \($0)" } ?? "unsigned"
            let now = local.signatureKeyID.map { "signed by key \($0)" } ?? "unsigned"
            return .refresh("the published manifest is \(was), this build's is \(now)")
        }
        let lifetime = expires.timeIntervalSince(published.issued ?? expires)
        guard expires.timeIntervalSince(now) < lifetime / 2 else { return .none(nil) }
        let due = "the published manifest expires \(fmt.string(from: expires)), past half its lifetime"
        guard let fresher = local.expires, fresher > expires else {
            return .none(
                "\(due), but this build's manifest expires no later; run seedbuild compress (or the nightly job) again to write a fresh one"
            )
        }
        return .refresh("\(due); the new one expires \(fmt.string(from: fresher))")
    }

    /// Refuses an unsigned manifest into a channel whose current release is signed, unless ``allowUnsigned``.
    func checkSigning(_ local: LocalRelease, against published: Manifest?, channel: PublishDestination) throws {
        guard let keyID = published?.signatureKeyID, local.manifest.signatureKeyID == nil, !allowUnsigned else { return }
        throw IngestError(
            .badData, file: local.manifestPath,
            "unsigned, but the release at \(channel.describe(ReleasePointer.fileName)) is signed by key \(keyID); apps that trust that key would refuse it. Build with --sign-key (or SEEDBUILD_SIGN_KEY), or pass --allow-unsigned"
        )
    }

    /// Where a manifest goes: `manifests/<version>.json`, or, when that already holds another manifest
    /// of the same data version (a refresh), `manifests/<version>-<sha256 prefix>.json` — published
    /// objects other than `latest.json` are never replaced.
    func manifestPath(for dataVersion: Int64, sha256: String, in channel: PublishDestination) throws -> String {
        let plain = ReleasePointer.manifestPath(dataVersion: dataVersion)
        guard let (_, existing) = try channel.checksum(plain), existing != sha256 else { return plain }
        return ReleasePointer.refreshedManifestPath(dataVersion: dataVersion, sha256: sha256)
    }

    /// `7.json` and `7-0123abcd….json` → 7.
    static func dataVersion(ofManifestNamed name: String) -> Int64? {
        guard name.hasSuffix(".json") else { return nil }
        return Int64(name.dropLast(5).prefix { $0 != "-" })
    }
}
