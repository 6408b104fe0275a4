import Foundation

/// Where an artifact's independent segments start, so it can be inflated on every core.
///
/// seedbuild's gzip member is cut into segments of `bytes` uncompressed bytes (the last may be
/// shorter); each starts, byte-aligned after a sync flush, with deflate blocks that refer to nothing
/// before them. `offsets[k]` is where segment `k`'s compressed data starts in the file (the first is
/// the end of the gzip header). The member stays one standard gzip stream: `gunzip` reads it as any
/// other; the table only lets a reader start segments on several threads
/// (`GzipInflater.inflate(segments:input:path:inputBytes:outputBytes:to:outputPath:hashInput:observe:)`).
/// It is recorded in the manifest's `artifact` entry as `"segments": {"bytes": …, "offsets": […]}`.
package struct GzipSegments: Sendable, Equatable {
    /// Uncompressed bytes in every segment but the last.
    package var bytes: Int64
    /// The compressed offset of each segment's first byte, in order.
    package var offsets: [Int64]

    /// A reader holds three segments in and out at once: a table (from a manifest anyone may have
    /// written, when unsigned) never makes it allocate more than this per segment.
    package static let maximumBytes: Int64 = 64 << 20

    /// A table of segments of `bytes` uncompressed bytes starting at `offsets`; ``problem(inputBytes:outputBytes:)`` checks it.
    package init(bytes: Int64, offsets: [Int64]) {
        self.bytes = bytes
        self.offsets = offsets
    }

    /// The table as a manifest records it, or nil when `value` is not one.
    package init?(_ value: JSONValue?) {
        guard let object = value?.objectValue, let bytes = object["bytes"]?.integerValue,
            let list = object["offsets"]?.arrayValue
        else { return nil }
        let offsets = list.compactMap(\.integerValue)
        guard offsets.count == list.count else { return nil }
        self.init(bytes: bytes, offsets: offsets)
    }

    /// Why the table cannot describe a gzip file of `inputBytes` inflating to `outputBytes`, or nil
    /// when it can: one segment per `bytes` of output, offsets after a 10-byte header, increasing,
    /// each segment no longer than deflate can make it, and the last leaving room for the trailer.
    package func problem(inputBytes: Int64, outputBytes: Int64) -> String? {
        guard bytes >= 65536, bytes <= Self.maximumBytes else { return "a segment size of \(bytes) bytes" }
        guard outputBytes >= 0 else { return "a stated size of \(outputBytes) bytes" }
        // Written so that no stated size (a manifest's, perhaps anyone's) can overflow.
        let count = outputBytes == 0 ? 1 : outputBytes / bytes + (outputBytes % bytes == 0 ? 0 : 1)
        guard Int64(offsets.count) == count else {
            return "\(offsets.count) segments for \(outputBytes) bytes in segments of \(bytes), not \(count)"
        }
        guard offsets.first == 10 else { return "the first segment at byte \(offsets.first ?? -1), not after the 10-byte header" }
        for (index, offset) in offsets.enumerated() {
            let end = index + 1 < offsets.count ? offsets[index + 1] : inputBytes - 8
            guard end > offset else { return "segment \(index) from byte \(offset) to \(end)" }
            guard end - offset <= Self.maximumCompressedBytes(bytes) else {
                return "segment \(index) is \(end - offset) compressed bytes, more than deflate makes of \(bytes)"
            }
        }
        return nil
    }

    /// Deflate's worst case for `bytes` of input (zlib's `deflateBound`, stored blocks), with room for
    /// each 512 KiB block's bound and sync-flush marker (12 bytes, under `bytes >> 15`).
    static func maximumCompressedBytes(_ bytes: Int64) -> Int64 {
        bytes + (bytes >> 12) + (bytes >> 14) + (bytes >> 15) + 64
    }
}
