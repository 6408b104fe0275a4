import SeedInstall

extension GzipSegments {
    /// Each segment starts without the 32 KiB before it: 2 MiB segments cost 0.029% in size on a
    /// 137 MB Core Data store (4 MiB ones 0.014%, but twice the reader's memory: a segment's input and
    /// output per thread and one more, 12 MiB with two cores).
    package static let minimumBytes: Int64 = 2 << 20
    /// A manifest is read at most 64 KiB: the segments are made larger rather than more numerous.
    package static let maximumCount = 2048

    /// The segment size for `inputBytes` of input: 2 MiB, doubled until there are at most
    /// ``maximumCount`` segments (up to ``maximumBytes``, reached at 128 GiB); always a whole number
    /// of `blockSize` blocks.
    package static func segmentBytes(forInput inputBytes: Int64, blockSize: Int) -> Int64 {
        var bytes = max(minimumBytes, Int64(blockSize))
        bytes -= bytes % Int64(blockSize)
        while (inputBytes + bytes - 1) / bytes > Int64(maximumCount) && bytes < maximumBytes { bytes *= 2 }
        return bytes
    }

    /// The table as the manifest records it: `{"bytes": …, "offsets": […]}`.
    package var jsonValue: JSONValue {
        .object(["bytes": .integer(bytes), "offsets": .array(offsets.map { .integer($0) })])
    }
}
