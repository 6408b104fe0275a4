import Foundation
import SeedTestSupport
import Testing

/// The layers docs/architecture.md draws inside the targets, read from the sources: a file may use
/// what its own layer and those below declare, never what only a folder above it declares — a type,
/// an extension's member, a free function or constant, an operator (``LayerAudit``). Targets are
/// walls the compiler keeps; inside a target this test keeps them.
@Suite("Layers inside the targets")
struct LayerAuditTests {
    /// Each target's folders, lowest layer first; folders of one layer may use each other. Files at
    /// a target's root (all of `seedbuild`'s) sit above its folders.
    static let layers: [(target: String, layers: [[String]])] = [
        (
            "SeedModel",
            [["Model", "Diagnostics"], ["Validation", "Versioning", "Migration"], ["JSON", "Xcode", "Compiled"], ["Loading"]]
        ),
        (
            "SeedInstall",
            [
                ["Errors", "JSON"], ["Files", "SQLite"], ["Compression", "Transfer"], ["Metadata"], ["Artifact", "CoreData"],
                ["Install", "Delta"],
            ]
        ),
        (
            "SeedStore",
            [
                ["Values"], ["SQLite"], ["CoreData"], ["Schema"], ["Predicate", "Migration"], ["Coordinator", "Stores"], ["Context"],
                ["Records"],
            ]
        ),
        (
            "SeedPipeline",
            [
                ["CSV", "Compression"], ["Ingest"], ["Build", "Delta", "Diff", "Artifact"],
                ["Publish", "Report", "Verify", "Inspect", "Query", "Project"],
            ]
        ),
        ("seedbuild", []),
    ]

    /// Uses that run up a layer on purpose, each with its reason.
    static let allowed: [(file: String, name: String, why: String)] = [
        (
            "Sources/SeedStore/Coordinator/StoreCoordinator.swift", "WeakContext",
            "the coordinator holds its top-level contexts weakly, so that a save merges into the others"
        )
    ]

    /// What each library target may import besides the system's modules: what Package.swift declares
    /// for it (SwiftPM builds other modules beside it and would let an undeclared import through).
    static let imports: [String: Set<String>] = [
        "SeedModel": ["Crypto"],
        "SeedInstall": ["SeedModel", "Crypto", "CZlib", "CSQLite", "SQLite3"],
        "SeedStore": ["SeedModel", "SeedInstall", "GRDB", "GRDBSQLite", "SQLite3", "Crypto"],
    ]
    static let systemModules: Set<String> = ["Foundation", "FoundationNetworking", "FoundationXML", "Dispatch", "Glibc", "Darwin", "Musl"]

    @Test func noFileUsesWhatALayerAboveItDeclares() throws {
        var findings: [String] = []
        var excused: Set<String> = []
        for (target, layers) in Self.layers {
            let root = repositoryRoot.appendingPathComponent("Sources/\(target)")
            var texts: [String: String] = [:]
            for file in try Self.swiftFiles(in: root) {
                texts[file] = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            }
            let folders = Set(texts.keys.compactMap(LayerAudit.folder))
            #expect(
                folders == Set(layers.joined()),
                "\(target)'s folders and the layers listed here differ: \(folders.symmetricDifference(layers.joined()).sorted())")
            for finding in LayerAudit(layers: layers).findings(texts) {
                let path = "Sources/\(target)/\(finding.file)"
                if Self.allowed.contains(where: { $0.file == path && $0.name == finding.name }) {
                    excused.insert("\(path) \(finding.name)")
                } else {
                    findings.append("Sources/\(target)/\(finding)")
                }
            }
        }
        #expect(findings.isEmpty, "\(findings.joined(separator: "\n"))")
        #expect(excused == Set(Self.allowed.map { "\($0.file) \($0.name)" }), "an exception no longer needed: remove it")
    }

    /// Each kind of declaration, used from a layer below the one declaring it, is found; the same use
    /// from the declaring layer, or a name the lower layer declares itself, is not.
    @Test(arguments: [
        ("a type", "public struct Signer {}\n", "let signer = Signer()\n", "Signer"),
        ("a nested type an extension adds", "extension Data {\n    struct Chunk {}\n}\n", "let chunk = Data.Chunk()\n", "Chunk"),
        ("an extension method", "extension String {\n    func quoted() -> String { self }\n}\n", "let q = name.quoted()\n", "quoted"),
        (
            "an extension property", "extension CoreDataSchema {\n    package var contentDumps: [String] { [] }\n}\n",
            "digest = compute(tables: new.contentDumps)\n", "contentDumps"
        ),
        (
            "an extension property on a type of ours the file names", "extension Schema {\n    var dumps: [String] { [] }\n}\n",
            "func restamp(_ new: Schema) -> [String] { new.dumps }\n", "dumps"
        ),
        ("an extension's static member", "extension Int {\n    static let pageSize = 4096\n}\n", "let size = Int.pageSize\n", "pageSize"),
        (
            "a method called on self in an extension", "extension Model {\n    func rebuild() {}\n}\n",
            "extension Model {\n    func go() { rebuild() }\n}\n", "rebuild"
        ),
        ("a free function", "func sqlLiteral(_ text: String) -> String { text }\n", "let literal = sqlLiteral(entity)\n", "sqlLiteral"),
        (
            "a free function inside a string's interpolation", "func sqlLiteral(_ text: String) -> String { text }\n",
            "let sql = \"WHERE v.entity = \\(sqlLiteral(name)) AND \\(\"x\")\"\n", "sqlLiteral"
        ),
        ("a global constant", "let windowBits: Int32 = -15\n", "let bits = windowBits\n", "windowBits"),
        ("an operator", "infix operator <~>: AdditionPrecedence\nfunc <~> (a: Int, b: Int) -> Int { a }\n", "let x = 1 <~> 2\n", "<~>"),
        (
            "an operator a type implements", "extension Version {\n    static func <~> (a: Version, b: Version) -> Bool { true }\n}\n",
            "let x = a <~> b\n", "<~>"
        ),
    ])
    func theAuditFindsEachKindOfUpwardUse(kind: String, declaration: String, use: String, name: String) {
        let audit = LayerAudit(layers: [["Low"], ["High"]])
        // A member of that name in the lower layer's own type does not hide a free function or a type.
        let lowerMember =
            "struct Schema {}\nstruct Value {\n    func sqlLiteral(fieldText: String) -> String { fieldText }\n}\nextension Value {\n    var sqlLiteral: String { \"\" }\n}\n"
        let planted = audit.findings(["High/Declared.swift": declaration, "Low/Value.swift": lowerMember, "Low/User.swift": use])
        #expect(planted.map(\.file) == ["Low/User.swift"] && planted.map(\.name) == [name], "\(kind): \(planted)")
        #expect(
            audit.findings(["High/Declared.swift": declaration, "Low/Value.swift": lowerMember, "High/User.swift": use]).isEmpty,
            "\(kind), used beside it")
        #expect(
            audit.findings(["Low/Declared.swift": declaration, "Low/Value.swift": lowerMember, "High/User.swift": use]).isEmpty,
            "\(kind), used from above")
    }

    /// What the audit must not take for a use: words in comments and strings, argument labels, names
    /// the file or a lower layer declares itself, and a member of a type of ours the file never names
    /// (Crypto's `SHA256.hash`, the system's `read`).
    @Test func theAuditSeesUsesNotWords() {
        let audit = LayerAudit(layers: [["Low"], ["High"]])
        let high = """
            public struct Signer {}
            func quoted(_ s: String) -> String { s }
            extension Data {
                var path: String { "" }
            }
            extension Signer {
                func hash(into hasher: inout Hasher) {}
                static func read(at path: String) {}
            }
            private func hidden() {}
            """
        let low = """
            // Signer
            let text = "quoted(Signer)"
            /// Signer.hash
            func make(quoted: Int) -> Int { quoted }
            let x = make(quoted: 1)
            struct File { var path = "" }
            let p = File().path
            func helper() { hidden() }
            let digest = SHA256.hash(data: raw)
            let count = read(descriptor, buffer, 1)
            """
        #expect(audit.findings(["High/A.swift": high, "Low/B.swift": low]).isEmpty)
        #expect(
            Self.importedModules(
                "import Foundation\n@_exported import SeedInstall\npackage import GRDB\n#if canImport(SQLite3)\ninternal import SQLite3\n#endif\n"
            ) == ["Foundation", "SeedInstall", "GRDB", "SQLite3"])
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

    static func swiftFiles(in root: URL) throws -> [String] {
        (FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".swift") }.sorted()
    }

    static func importedModules(_ text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            (try? #/^\s*(?:@\w+\s+)?(?:(?:public|package|internal|fileprivate|private)\s+)?import\s+(\w+)/#.prefixMatch(in: line)).flatMap {
                $0
            }.map { String($0.output.1) }
        }
    }
}
