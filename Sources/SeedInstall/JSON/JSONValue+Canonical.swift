/// The canonical JSON form signatures are made over, so any implementation can reproduce the bytes.
///
/// - Objects: keys in ascending order of their UTF-8 bytes, `{"a":1,"b":2}`, no white space anywhere.
/// - Strings: UTF-8; `"` and `\` escaped with a backslash; U+0008, U+0009, U+000A, U+000C, U+000D
///   as `\b \t \n \f \r`; other characters below U+0020 as `\u00XX` (lowercase hex); everything
///   else, `/` and non-ASCII included, as itself.
/// - Numbers: integers only, in decimal without leading zeros or `+` (a manifest holds no fractions).
/// - `true`, `false`, `null` as such.
extension JSONValue {
    /// The value's canonical JSON as UTF-8 bytes, in the form described above.
    package var canonicalBytes: [UInt8] {
        var out: [UInt8] = []
        appendCanonical(to: &out)
        return out
    }

    private func appendCanonical(to out: inout [UInt8]) {
        switch self {
        case .null: out += Array("null".utf8)
        case .bool(let value): out += Array((value ? "true" : "false").utf8)
        case .integer(let value): out += Array(String(value).utf8)
        case .double(let value):
            // Not produced by manifests; whole doubles print as integers, others in Swift's shortest form.
            if let whole = Int64(exactly: value) { out += Array(String(whole).utf8) } else { out += Array("\(value)".utf8) }
        case .string(let value): Self.appendString(value, to: &out)
        case .array(let values):
            out.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                value.appendCanonical(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let members):
            out.append(UInt8(ascii: "{"))
            let keys = members.keys.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
            for (index, key) in keys.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                Self.appendString(key, to: &out)
                out.append(UInt8(ascii: ":"))
                members[key]!.appendCanonical(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func appendString(_ string: String, to out: inout [UInt8]) {
        let hex = Array("0123456789abcdef".utf8)
        out.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [0x5C, 0x22]
            case UInt8(ascii: "\\"): out += [0x5C, 0x5C]
            case 0x08: out += [0x5C, UInt8(ascii: "b")]
            case 0x09: out += [0x5C, UInt8(ascii: "t")]
            case 0x0A: out += [0x5C, UInt8(ascii: "n")]
            case 0x0C: out += [0x5C, UInt8(ascii: "f")]
            case 0x0D: out += [0x5C, UInt8(ascii: "r")]
            case 0..<0x20: out += [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
