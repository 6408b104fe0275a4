import Foundation
import SeedTestSupport
import Testing

/// The platforms `Package.swift` declares (iOS 17, macOS 14) are a promise that nothing on these
/// Linux machines checks: this reads the sources for the APIs known to break it. Each entry says
/// where the API starts and what to use instead.
@Suite("Apple platform audit")
struct PlatformAuditTests {
    struct Rule {
        var pattern: String
        var why: String
        /// `#if` conditions (any one of them, enclosing the line) under which the API is fine.
        var allowedUnder: [String] = []
    }

    static let rules = [
        Rule(pattern: #"import\s+Synchronization"#, why: "Synchronization (Mutex, Atomic) needs iOS 18 / macOS 15: use NSLock"),
        Rule(pattern: #"\bMutex\s*<"#, why: "Mutex needs iOS 18 / macOS 15: use NSLock"),
        Rule(pattern: #"\bAtomic\s*<"#, why: "Atomic needs iOS 18 / macOS 15: use NSLock"),
        Rule(pattern: #"\b(U?Int128)\b"#, why: "Int128 and UInt128 need iOS 18 / macOS 15"),
        Rule(
            pattern: #"\b(RawSpan|MutableSpan|MutableRawSpan|OutputSpan|UTF8Span|InlineArray)\b|\.span\b"#,
            why: "Span and InlineArray need iOS 26 / macOS 26: use withUnsafeBufferPointer"),
        Rule(
            pattern: #"String\(validating:"#,
            why: "String(validating:) needs iOS 18 / macOS 15: use String(decoding:as:) with a check, or String(validatingUTF8:)"),
        Rule(pattern: #"\bTask\.immediate\b|withTaskExecutorPreference|\bTaskExecutor\b"#, why: "needs iOS 18 / macOS 15 or later"),
        Rule(
            pattern: #"\bst_[amc]tim\b"#, why: "Linux's stat field; Apple's systems name it st_mtimespec",
            allowedUnder: ["canImport(Glibc)", "os(Linux)", "!canImport(Darwin)", "#else"]),
        Rule(pattern: #"\bProcess\(\)"#, why: "Process does not exist on iOS, tvOS, watchOS or visionOS", allowedUnder: ["os(macOS)"]),
        Rule(
            pattern: #"^\s*import\s+(Glibc|FoundationNetworking|Musl|FoundationXML)\b"#,
            why: "Linux-only module: import it behind #if canImport", allowedUnder: ["canImport("]),
    ]

    /// The library products' sources, which apps compile for Apple's platforms.
    static let libraryFolders = ["Sources/SeedModel", "Sources/SeedInstall", "Sources/SeedStore", "Sources/SeedPipeline"]

    @Test func packageDeclaresTheAuditedPlatforms() throws {
        let manifest = try String(contentsOf: repositoryRoot.appendingPathComponent("Package.swift"), encoding: .utf8)
        // The rules above are written for these minimums; raising them is a decision to record here.
        #expect(manifest.contains("platforms: [.macOS(.v14), .iOS(.v17)]"), "the platforms changed: review the rules of this audit")
    }

    @Test func librariesUseNoAPINewerThanTheDeclaredPlatforms() throws {
        var findings: [String] = []
        for folder in Self.libraryFolders {
            let root = repositoryRoot.appendingPathComponent(folder)
            let files = (FileManager.default.enumerator(atPath: root.path)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".swift") }
                .sorted()
            #expect(!files.isEmpty, "no sources in \(folder)")
            for file in files {
                let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
                findings += Self.audit(text, file: "\(folder)/\(file)")
            }
        }
        #expect(findings.isEmpty, "\(findings.joined(separator: "\n"))")
    }

    /// The audit itself finds what it is for, and lets a guarded use through.
    @Test func theAuditCatchesAndAllows() {
        #expect(Self.audit("import Foundation\nimport Synchronization\n", file: "x").count == 1)
        #expect(Self.audit("let m = Mutex<Int>(0)", file: "x").count == 1)
        #expect(Self.audit("x = s.st_mtim.tv_sec", file: "x").count == 1)
        #expect(Self.audit("#if canImport(Darwin)\nx = s.st_mtimespec\n#else\nx = s.st_mtim.tv_sec\n#endif", file: "x").isEmpty)
        #expect(Self.audit("#if os(macOS) || os(Linux)\nlet p = Process()\n#endif", file: "x").isEmpty)
        #expect(Self.audit("import FoundationNetworking", file: "x").count == 1)
        #expect(Self.audit("#if canImport(FoundationNetworking)\nimport FoundationNetworking\n#endif", file: "x").isEmpty)
        #expect(Self.audit("// Mutex<Int> needs iOS 18", file: "x").isEmpty, "comments are not code")
    }

    /// Each line that uses a rule's API outside the `#if` branches that allow it.
    static func audit(_ text: String, file: String) -> [String] {
        var findings: [String] = []
        // The condition of each open #if branch; `#else` branches are kept as "#else".
        var branches: [String] = []
        for (number, line) in text.components(separatedBy: "\n").enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("#if") {
                branches.append(trimmed)
                continue
            }
            if trimmed.hasPrefix("#elseif") {
                branches[branches.count - 1] = trimmed
                continue
            }
            if trimmed.hasPrefix("#else") {
                branches[branches.count - 1] = "#else"
                continue
            }
            if trimmed.hasPrefix("#endif") {
                _ = branches.popLast()
                continue
            }
            let code = trimmed.components(separatedBy: "//").first ?? ""
            for rule in rules where code.range(of: rule.pattern, options: .regularExpression) != nil {
                let allowed = branches.contains { branch in rule.allowedUnder.contains { branch.contains($0) } }
                if !allowed { findings.append("\(file):\(number + 1): \(trimmed) — \(rule.why)") }
            }
        }
        return findings
    }
}
