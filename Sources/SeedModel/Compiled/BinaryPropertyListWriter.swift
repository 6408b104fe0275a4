/// Writes a ``PropertyListValue`` as a binary property list (`bplist00`), the same bytes for the
/// same value: dictionary keys in sorted order (Foundation's writer follows the dictionary's
/// hash order, which changes from run to run), so stores stamped with one are reproducible.
/// Tests also use it to make archives the reader must handle without a Mac.
public struct BinaryPropertyListWriter {
    private var objects: [[UInt8]] = []

    public static func write(_ value: PropertyListValue) -> [UInt8] {
        var writer = BinaryPropertyListWriter()
        let top = writer.add(value)
        return writer.finish(top: top)
    }

    private mutating func add(_ value: PropertyListValue) -> Int {
        var bytes: [UInt8]
        switch value {
        case .null: bytes = [0x00]
        case .bool(let flag): bytes = [flag ? 0x09 : 0x08]
        case .integer(let number): bytes = [0x13] + Self.bigEndian(UInt64(bitPattern: number), size: 8)
        case .real(let number): bytes = [0x23] + Self.bigEndian(number.bitPattern, size: 8)
        case .date(let seconds): bytes = [0x33] + Self.bigEndian(seconds.bitPattern, size: 8)
        case .data(let data): bytes = Self.marker(0x4, data.count) + data
        case .uid(let index): bytes = [0x83] + Self.bigEndian(UInt64(index), size: 4)
        case .string(let text):
            if text.utf8.allSatisfy({ $0 < 0x80 }) {
                bytes = Self.marker(0x5, text.utf8.count) + Array(text.utf8)
            } else {
                let units = Array(text.utf16)
                bytes = Self.marker(0x6, units.count) + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            }
        case .array(let items):
            let references = items.map { add($0) }
            bytes = Self.marker(0xA, references.count) + references.flatMap { Self.bigEndian(UInt64($0), size: 4) }
        case .dictionary(let entries):
            let keys = entries.keys.sorted()
            let keyReferences = keys.map { add(.string($0)) }
            let valueReferences = keys.map { add(entries[$0]!) }
            bytes = Self.marker(0xD, keys.count) + (keyReferences + valueReferences).flatMap { Self.bigEndian(UInt64($0), size: 4) }
        }
        objects.append(bytes)
        return objects.count - 1
    }

    private func finish(top: Int) -> [UInt8] {
        var output = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(output.count)
            output += object
        }
        let table = output.count
        for offset in offsets { output += Self.bigEndian(UInt64(offset), size: 8) }
        output += [0, 0, 0, 0, 0, 0, 8, 4]
        output +=
            Self.bigEndian(UInt64(objects.count), size: 8) + Self.bigEndian(UInt64(top), size: 8)
            + Self.bigEndian(UInt64(table), size: 8)
        return output
    }

    private static func marker(_ type: UInt8, _ count: Int) -> [UInt8] {
        count < 15 ? [type << 4 | UInt8(count)] : [type << 4 | 0x0F, 0x13] + bigEndian(UInt64(count), size: 8)
    }

    private static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}
