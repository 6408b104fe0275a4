import Foundation
import SeedModel
import SeedTestSupport

extension TemporaryDirectory {
    /// Writes an `.xcdatamodeld` bundle with the given versions (folder stem → contents XML).
    @discardableResult
    func writeBundle(_ name: String, versions: [(String, String)], current: String?) -> String {
        for (version, contents) in versions {
            write("\(name).xcdatamodeld/\(version).xcdatamodel/contents", contents)
        }
        if let current {
            write(
                "\(name).xcdatamodeld/.xccurrentversion",
                """
                <?xml version="1.0" encoding="UTF-8"?>
                <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
                <plist version="1.0">
                <dict>
                \t<key>_XCCurrentVersionName</key>
                \t<string>\(current).xcdatamodel</string>
                </dict>
                </plist>

                """)
        }
        return path("\(name).xcdatamodeld")
    }
}

func sampleSchema(_ name: String) -> String {
    repositoryRoot.appendingPathComponent("schemas/\(name)").path
}

/// Wraps entity XML in a `<model>` element as Xcode writes it.
func modelXML(_ body: String, identifier: String? = nil) -> String {
    let versionAttribute = identifier.map { " userDefinedModelVersionIdentifier=\"\($0)\"" } ?? ""
    return """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" lastSavedToolsVersion="22758" systemVersion="23F79" minimumToolsVersion="Automatic" sourceLanguage="Swift"\(versionAttribute)>
        \(body)
        </model>

        """
}

/// Loads a model from XML written to a fresh version folder.
func loadXML(_ body: String, in directory: TemporaryDirectory, name: String = "Test") throws -> Model {
    directory.write("\(name).xcdatamodel/contents", modelXML(body))
    return try ModelLoader.load(directory.path("\(name).xcdatamodel"))
}

/// The messages of a model error's diagnostics, for assertions.
func messages(of error: ModelError) -> [String] {
    error.diagnostics.map(\.description)
}
