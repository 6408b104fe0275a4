import Foundation
import SeedInstall
import SeedPipeline
import SeedTestSupport
import Testing

/// The device's reading of the delta format: any cut or damaged delta is refused, by the gzip
/// layer or by the decoder itself, never read as a shorter delta.
@Suite("Delta format: reading on the device")
struct DeltaFormatTests {
    let directory = TemporaryDirectory()

    /// A delta with every operation and value kind, over a keyed and a rowid table, in the order the
    /// format requires (tables in header order; clear, deletes, inserts, updates), as the build writes it.
    private func writeDelta() throws -> String {
        let tables = [
            DeltaTable(name: "ZBOOK", columns: ["Z_PK", "ZTITLE", "ZPRICE", "ZCOVER"], keyColumns: [0]),
            DeltaTable(name: "log", columns: ["id", "line"], keyColumns: []),
        ]
        let header = DeltaHeader(
            from: DeltaRelease(dataVersion: 1, contentDigest: String(repeating: "a", count: 64)),
            to: DeltaRelease(dataVersion: 2, contentDigest: String(repeating: "b", count: 64)), tables: tables)
        let path = directory.path("1-2.delta.gz")
        let writer = try DeltaWriter(path: path, header: header)
        for key in 1...40 { try writer.write(.delete(table: 0, key: [.integer(Int64(key))])) }
        for key in 41...80 {
            try writer.write(
                .insert(table: 0, row: [.integer(Int64(key)), .text("Book \(key) é"), .real(Double(key) / 3), .blob([0, 1, UInt8(key)])]))
        }
        for key in 81...120 {
            try writer.write(.update(table: 0, key: [.integer(Int64(key))], changes: [DeltaChange(column: 2, value: .null)]))
        }
        try writer.write(.clear(table: 1))
        try writer.write(.insert(table: 1, row: [.integer(1), .text("rebuilt")]))
        try writer.finish()
        return path
    }

    @Test func aTruncatedOrDamagedDeltaIsRefused() throws {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: try writeDelta()))
        for cut in [1, 8, bytes.count / 2, bytes.count - 1] {
            #expect(throws: DeltaError.self) { try DeltaReader.decode(gzip: bytes.prefix(cut)) }
        }
        var damaged = bytes
        damaged[bytes.count / 2] ^= 0x40
        #expect(throws: DeltaError.self) { try DeltaReader.decode(gzip: damaged) }
        #expect(throws: DeltaError.self) { try DeltaReader.decode(gzip: bytes + Data([0x1f, 0x8b])) }
        // Inside the compression, every cut of the encoding is refused by the decoder itself.
        let encoded = Array(try RawInflate.inflate(bytes, limit: 1 << 20, windowBits: 31))
        for cut in stride(from: 0, to: encoded.count, by: max(1, encoded.count / 200)) {
            var decoder = DeltaDecoder(Array(encoded.prefix(cut)))
            #expect(throws: DeltaError.self) { try decoder.decode() }
        }
        var decoder = DeltaDecoder(encoded)
        let whole = try decoder.decode()
        #expect(try whole == DeltaReader.decode(gzip: bytes))
        #expect(whole.operations.count == 122)
    }
}
