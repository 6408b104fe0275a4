import Foundation
import SeedPipeline
import SeedTestSupport
import Testing

/// Every kind of rejected row, alone or beside any other, stays a rejected row: the build passes
/// within --max-rejects and fails past it with the rejects file, never with another error.
@Suite("Rejects in combination")
struct RejectCombinationTests {
    /// Each case adds rows that give exactly one reject.
    static let cases: [String: [UInt8]] = [
        "bad value": Array("CT1 1XA,KEN,north,yes,,E1\n".utf8),
        "ragged": Array("CT1 1XB,KEN\n".utf8),
        "unknown reference": Array("CT1 1XC,ZZZ,1,yes,,E1\n".utf8),
        "invalid UTF-8": Array("CT1 1XD".utf8) + [0xFF] + Array(",KEN,1,yes,,E1\n".utf8),
        "duplicate in order": Array("CT1 1XE,KEN,1,yes,,E1\nCT1 1XE,KEN,2,yes,,E1\n".utf8),
        "duplicate out of order": Array("AA1 1AA,KEN,1,yes,,E1\nAA1 1AA,KEN,2,yes,,E1\n".utf8),
        "too long": Array(("CT1 1XF,KEN,1,yes,," + String(repeating: "E", count: 5_000) + "\n").utf8),
    ]

    static let pairs: [(String, String)] = {
        let names = cases.keys.sorted()
        return names.indices.flatMap { i in names[i...].map { (names[i], $0) } }
    }()

    @Test(arguments: pairs)
    func aPairOfRejectKindsStaysRejects(first: String, second: String) throws {
        let directory = TemporaryDirectory()
        writeTestInputs(directory)
        var bytes = Array(
            "postcode,county_code,latitude,active,introduced,country_code\nCT1 1AA,KEN,1,yes,,E1\nCT9 9ZZ,KEN,1,yes,,E1\n".utf8)
        bytes += Self.cases[first]! + (first == second ? [] : Self.cases[second]!)
        try Data(bytes).write(to: URL(fileURLWithPath: directory.path("in/postcodes.csv")))
        let expected = first == second ? 1 : 2
        let configure: (inout BuildOptions) -> Void = { $0.maxRecordBytes = 4_096 }
        let error = #expect(throws: IngestError.self) { try buildTestStore(directory, maxRejects: expected - 1, configure: configure) }
        #expect(error?.kind == .tooManyRejects, "\(first) + \(second): \(String(describing: error))")
        #expect(FileManager.default.fileExists(atPath: directory.path("out/postcodes.rejects.csv")))
        let built = try buildTestStore(directory, maxRejects: expected, configure: configure)
        #expect(built.rejected == expected, "\(first) + \(second)")
        #expect(built.rowCounts["Postcode"] == 2 + Self.kept(first) + (first == second ? 0 : Self.kept(second)))
    }

    /// Rows a case adds that still load (the first of a duplicate pair).
    static func kept(_ name: String) -> Int { name.hasPrefix("duplicate") ? 1 : 0 }
}
