/// One value of a binary property list, NSKeyedArchiver's UIDs kept as such.
///
/// Foundation's `PropertyListSerialization` hands UIDs back as a private class on Linux, so
/// compiled models are read with ``BinaryPropertyList`` instead.
public enum PropertyListValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    /// Seconds since 2001-01-01 00:00:00 UTC.
    case date(Double)
    case data([UInt8])
    case string(String)
    /// An NSKeyedArchiver reference: an index into the archive's `$objects`.
    case uid(Int)
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])
}

/// Why bytes are not a binary property list: what is wrong, without the file name.
struct PropertyListFault: Error, Sendable {
    let reason: String
}

/// Reads Apple's binary property list format (`bplist00`): a header, the objects, a table of
/// their offsets and a 32-byte trailer.
///
/// Every offset, count and reference is checked against the bytes, references may not loop, and
/// shared objects are decoded once, so a truncated or hostile file is refused, never a crash.
enum BinaryPropertyList {
    /// The deepest nesting of arrays and dictionaries read: keyed archives nest three or four
    /// (objects refer to each other by UID, not by nesting), and a test thread's stack is small.
    static let maximumDepth = 128

    static func parse(_ bytes: [UInt8]) throws(PropertyListFault) -> PropertyListValue {
        guard bytes.count >= 8 + 1 + 32 else {
            throw PropertyListFault(reason: "it is \(bytes.count) bytes long, too short for a binary property list")
        }
        guard bytes[0..<8].elementsEqual("bplist00".utf8) else {
            throw PropertyListFault(reason: "it does not start with \"bplist00\"; it is not a binary property list")
        }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        var parser = Parser(bytes: bytes, referenceSize: referenceSize)
        let count = try parser.unsigned(at: trailer + 8, size: 8)
        let top = try parser.unsigned(at: trailer + 16, size: 8)
        let table = try parser.unsigned(at: trailer + 24, size: 8)
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize), count > 0, top < count,
            table >= 8, table <= trailer, count <= (trailer - table) / offsetSize
        else {
            throw PropertyListFault(
                reason: "its trailer is inconsistent (object count \(count), offset table at \(table)); the file is truncated or corrupt")
        }
        var offsets: [Int] = []
        offsets.reserveCapacity(count)
        for index in 0..<count {
            let offset = try parser.unsigned(at: table + index * offsetSize, size: offsetSize)
            guard offset >= 8, offset < table else {
                throw PropertyListFault(reason: "object \(index) starts at \(offset), outside the object area")
            }
            offsets.append(offset)
        }
        parser.offsets = offsets
        return try parser.object(top)
    }

    private struct Parser {
        let bytes: [UInt8]
        let referenceSize: Int
        var offsets: [Int] = []
        private var decoded: [Int: PropertyListValue] = [:]
        private var open: Set<Int> = []

        init(bytes: [UInt8], referenceSize: Int) {
            self.bytes = bytes
            self.referenceSize = referenceSize
        }

        /// A big-endian unsigned number of `size` bytes that fits in an `Int`.
        func unsigned(at offset: Int, size: Int) throws(PropertyListFault) -> Int {
            let value = try raw(at: offset, size: size)
            guard value <= UInt64(Int.max) else { throw PropertyListFault(reason: "a size or offset at byte \(offset) is too large") }
            return Int(value)
        }

        private func raw(at offset: Int, size: Int) throws(PropertyListFault) -> UInt64 {
            guard size <= 8, offset >= 0, offset <= bytes.count - size else {
                throw PropertyListFault(reason: "a value at byte \(offset) runs past the end of the data; the file is truncated")
            }
            var value: UInt64 = 0
            for byte in bytes[offset..<(offset + size)] { value = value << 8 | UInt64(byte) }
            return value
        }

        mutating func object(_ index: Int) throws(PropertyListFault) -> PropertyListValue {
            guard index >= 0, index < offsets.count else {
                throw PropertyListFault(reason: "a reference to object \(index) is out of range (\(offsets.count) objects)")
            }
            if let value = decoded[index] { return value }
            guard open.count < BinaryPropertyList.maximumDepth, open.insert(index).inserted else {
                throw PropertyListFault(reason: "object \(index) contains itself or nests too deeply")
            }
            defer { open.remove(index) }
            let value = try decode(at: offsets[index])
            decoded[index] = value
            return value
        }

        private mutating func decode(at offset: Int) throws(PropertyListFault) -> PropertyListValue {
            let marker = bytes[offset]
            let low = Int(marker & 0x0F)
            switch marker >> 4 {
            case 0x0:
                switch marker {
                case 0x08: return .bool(false)
                case 0x09: return .bool(true)
                case 0x00, 0x0F: return .null
                default: break
                }
            case 0x1 where low <= 4:
                // 1, 2 and 4 bytes are unsigned, 8 signed; 16 bytes keep their low 8.
                let size = 1 << low
                let value = try raw(at: offset + 1 + max(0, size - 8), size: min(size, 8))
                return .integer(size >= 8 ? Int64(bitPattern: value) : Int64(value))
            case 0x2 where low == 2:
                return .real(Double(Float(bitPattern: UInt32(try raw(at: offset + 1, size: 4)))))
            case 0x2 where low == 3:
                return .real(Double(bitPattern: try raw(at: offset + 1, size: 8)))
            case 0x3 where low == 3:
                return .date(Double(bitPattern: try raw(at: offset + 1, size: 8)))
            case 0x4:
                let (start, count) = try extent(at: offset, unit: 1)
                return .data(Array(bytes[start..<(start + count)]))
            case 0x5:
                let (start, count) = try extent(at: offset, unit: 1)
                return .string(String(decoding: bytes[start..<(start + count)], as: UTF8.self))
            case 0x6:
                let (start, count) = try extent(at: offset, unit: 2)
                let units = (0..<count).map { UInt16(bytes[start + 2 * $0]) << 8 | UInt16(bytes[start + 2 * $0 + 1]) }
                return .string(String(decoding: units, as: UTF16.self))
            case 0x8:
                return .uid(try unsigned(at: offset + 1, size: low + 1))
            case 0xA, 0xC:
                let (start, count) = try extent(at: offset, unit: referenceSize)
                var items: [PropertyListValue] = []
                for position in 0..<count {
                    items.append(try object(try unsigned(at: start + position * referenceSize, size: referenceSize)))
                }
                return .array(items)
            case 0xD:
                let (start, count) = try extent(at: offset, unit: 2 * referenceSize)
                var entries: [String: PropertyListValue] = [:]
                for position in 0..<count {
                    let key = try object(try unsigned(at: start + position * referenceSize, size: referenceSize))
                    guard case .string(let name) = key else {
                        throw PropertyListFault(reason: "a dictionary at byte \(offset) has a key that is not a string")
                    }
                    let valueAt = start + (count + position) * referenceSize
                    entries[name] = try object(try unsigned(at: valueAt, size: referenceSize))
                }
                return .dictionary(entries)
            default:
                break
            }
            throw PropertyListFault(reason: "unknown object marker 0x\(String(marker, radix: 16, uppercase: true)) at byte \(offset)")
        }

        /// Where the items of a data, string or collection object start and how many there are:
        /// a count in the marker's low nibble, or 0xF and an integer object after it.
        private func extent(at offset: Int, unit: Int) throws(PropertyListFault) -> (start: Int, count: Int) {
            var start = offset + 1
            var count = Int(bytes[offset] & 0x0F)
            if count == 0x0F {
                guard start < bytes.count, bytes[start] >> 4 == 0x1, bytes[start] & 0x0F <= 3 else {
                    throw PropertyListFault(reason: "an object at byte \(offset) has a malformed length")
                }
                let size = 1 << Int(bytes[start] & 0x0F)
                count = try unsigned(at: start + 1, size: size)
                start += 1 + size
            }
            guard count <= (bytes.count - start) / unit else {
                throw PropertyListFault(
                    reason: "an object at byte \(offset) claims \(count) items, more than the file holds; it is truncated")
            }
            return (start, count)
        }
    }
}
