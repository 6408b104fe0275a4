import Foundation
import SeedTestSupport
import Testing

/// The layers docs/architecture.md draws inside SeedInstall and SeedStore, read from the sources:
/// a file may use the types of its own layer and those below, never one declared in a folder above
/// it. Targets are walls the compiler keeps; inside a target this test keeps them.
@Suite("Layers inside the library targets")
struct LayerAuditTests {
    /// Each target's folders, lowest layer first; folders of one layer may use each other.
    static let layers: [(target: String, layers: [[String]])] = [
        ("SeedInstall", [["Errors", "JSON"], ["Files", "SQLite"], ["Compression", "Transfer"], ["Metadata"], ["Artifact", "CoreData"], ["Install", "Delta"]]),
        ("SeedStore", [["Values"], ["SQLite"], ["CoreData"], ["Schema"], ["Predicate", "Migration"], ["Coordinator", "Stores"], ["Context"], ["Records"]]),
    ]

    /// Uses that run up a layer on purpose, each with its reason.
    static let allowed: [(file: String, type: String, why: String)] = [
        ("Sources/SeedStore/Coordinator/StoreCoordinator.swift", "WeakContext",
         "the coordinator holds its top-level contexts weakly, so that a save merges into the others"),
    ]

    /// What each library target may import besides the system's modules: what Package.swift declares
    /// for it (SwiftPM builds other modules beside it and would let an undeclared import through).
    static let imports: [String: Set<String>] = [
        "SeedModel": ["Crypto"],
        "SeedInstall": ["SeedModel", "Crypto", "CZlib", "CSQLite", "SQLite3"],
        "SeedStore": ["SeedModel", "SeedInstall", "GRDB", "GRDBSQLite", "SQLite3", "Crypto"],
    ]
    static let systemModules: Set<String> = ["Foundation", "FoundationNetworking", "FoundationXML", "Dispatch", "Glibc", "Darwin", "Musl"]

    @Test func noFileUsesATypeFromALayerAboveIt() throws {
        var findings: [String] = []
        var excused: Set<String> = []
        for (target, layers) in Self.layers {
            let root = repositoryRoot.appendingPathComponent("Sources/\(target)")
            let files = try Self.swiftFiles(in: root)
            var layerOf: [String: Int] = [:]
            for (index, folders) in layers.enumerated() { for folder in folders { layerOf[folder] = index } }
            let folders = Set(files.compactMap { $0.split(separator: "/").count > 1 ? String($0.split(separator: "/")[0]) : nil })
            #expect(folders == Set(layerOf.keys), "\(target)'s folders and the layers listed here differ: \(folders.symmetricDifference(layerOf.keys).sorted())")
            var declaredIn: [String: String] = [:]
            var texts: [String: String] = [:]
            for file in files {
                let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                texts[file] = text
                guard let folder = file.split(separator: "/").first.map(String.init), file.contains("/") else { continue }
                for name in Self.declaredTypes(text) { declaredIn[name] = folder }
            }
            for (file, text) in texts.sorted(by: { $0.key < $1.key }) {
                guard file.contains("/"), let folder = file.split(separator: "/").first.map(String.init), let layer = layerOf[folder] else { continue }
                for name in Self.typeNames(in: Self.code(text)) {
                    guard let owner = declaredIn[name], let above = layerOf[owner], above > layer else { continue }
                    let path = "Sources/\(target)/\(file)"
                    if Self.allowed.contains(where: { $0.file == path && $0.type == name }) {
                        excused.insert("\(path) \(name)")
                        continue
                    }
                    findings.append("\(path) uses \(name), declared in \(owner)/, a layer above \(folder)/: move it down, or the use up")
                }
            }
        }
        #expect(findings.isEmpty, "\(findings.joined(separator: "\n"))")
        #expect(excused == Set(Self.allowed.map { "\($0.file) \($0.type)" }), "an exception no longer needed: remove it")
    }

    @Test func libraryTargetsImportOnlyWhatTheyDeclare() throws {
        var findings: [String] = []
        for (target, allowed) in Self.imports.sorted(by: { $0.key < $1.key }) {
            let root = repositoryRoot.appendingPathComponent("Sources/\(target)")
            for file in try Self.swiftFiles(in: root) {
                let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                for module in Self.importedModules(text) where !allowed.contains(module) && !Self.systemModules.contains(module) {
                    findings.append("Sources/\(target)/\(file) imports \(module), which Package.swift does not give \(target)")
                }
            }
        }
        #expect(findings.isEmpty, "\(findings.joined(separator: "\n"))")
    }

    /// The audit finds a use that runs up, and reads past comments and strings.
    @Test func theAuditSeesUsesNotWords() {
        #expect(Self.declaredTypes("public struct A {}\npackage final class B {\n    struct Inner {}\n}\nextension C {}\n") == ["A", "B"])
        #expect(Self.typeNames(in: Self.code("let x = A() // B\nlet s = \"C\"\n/// D\nlet t = \"\"\"\n  E\n  \"\"\"\nlet f = F.name\n")) == ["A", "F"])
        #expect(Self.importedModules("import Foundation\n@_exported import SeedInstall\npackage import GRDB\n#if canImport(SQLite3)\ninternal import SQLite3\n#endif\n") == ["Foundation", "SeedInstall", "GRDB", "SQLite3"])
    }

    static func swiftFiles(in root: URL) throws -> [String] {
        (FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".swift") }.sorted()
    }

    /// Types declared at the top level of a file (column 0), the ones other files can name.
    static func declaredTypes(_ text: String) -> [String] {
        let pattern = #/^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|fileprivate|private|final|indirect)\s+)*(?:struct|enum|class|protocol|actor|typealias)\s+([A-Z]\w*)/#
        return text.split(separator: "\n").compactMap { line in (try? pattern.prefixMatch(in: line)).flatMap { $0 }.map { String($0.output.1) } }
    }

    /// The code without comments and string literals, where type names would only be words.
    static func code(_ text: String) -> String {
        var code = text.replacing(#/"""[\s\S]*?"""/#, with: "\"\"")
        code = code.replacing(#//\*[\s\S]*?\*//#, with: "")
        code = code.replacing(#/"(?:\\.|[^"\\\n])*"/#, with: "\"\"")
        return code.replacing(#///[^\n]*/#, with: "")
    }

    /// Capitalised words, each once, in order of first use.
    static func typeNames(in code: String) -> [String] {
        var seen: Set<String> = []
        // Simple word boundaries: Unicode's would read `Manifest.fileName` as one word.
        return code.matches(of: #/\b[A-Z]\w*\b/#.wordBoundaryKind(.simple)).map { String($0.output) }.filter { seen.insert($0).inserted }
    }

    static func importedModules(_ text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            (try? #/^\s*(?:@\w+\s+)?(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+(\w+)/#.prefixMatch(in: line)).flatMap { $0 }.map { String($0.output.1) }
        }
    }
}
