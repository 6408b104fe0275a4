import Foundation
import SeedInstall

extension Manifest {
    /// The file's text: pretty-printed with sorted keys.
    package var fileData: Data {
        Data((JSONValue.object(values).prettyText + "\n").utf8)
    }
}

extension Manifest.DeltaEntry {
    /// The entry as the manifest writes it.
    package var jsonValue: JSONValue {
        .object([
            "fromDataVersion": .integer(fromDataVersion), "fromContentDigest": .string(fromContentDigest),
            "fromStoreSHA256": .string(fromStoreSHA256), "fileName": .string(fileName), "bytes": .integer(bytes),
            "sha256": .string(sha256), "toContentDigest": .string(toContentDigest),
        ])
    }
}
