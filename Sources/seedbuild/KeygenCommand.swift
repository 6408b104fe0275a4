import ArgumentParser
import Foundation
import SeedPipeline

/// `seedbuild keygen --out DIR`: an Ed25519 key pair for signing manifests.
struct KeygenCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keygen",
        abstract: "Write an Ed25519 key pair for signing manifests: seedbuild-signing.key (mode 0600) and .pub.")

    @Option(
        help:
            "The folder to write the keys to; never inside a git work tree unless git ignores it there (default: ~/.config/seedbuild/keys)."
    )
    var out: String = KeyLocation.suggestedDirectory()

    func run() throws {
        let key = SigningKey.generate()
        let paths = try CommandFailure.exitOnError { try key.write(to: out) }
        print("private key \(paths.privateKey) (keep it secret), public key \(paths.publicKey), key id \(key.publicKey.keyID)")
    }
}
