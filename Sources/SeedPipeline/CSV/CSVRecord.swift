/// One record of a ``CSVReader``: a view of the reader's buffer, valid until the reader's next call.
public struct CSVRecord {
    private unowned let reader: CSVReader

    init(reader: CSVReader) {
        self.reader = reader
    }

    /// The line the record starts on (1 is the header).
    public var line: Int { reader.recordLine }

    public var count: Int { reader.fieldStarts.count }

    /// Calls `body` with the field's bytes, quotes removed and doubled quotes made single.
    public func withField<R>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let start = reader.fieldStarts[index]
        let end = reader.fieldEnds[index]
        if !reader.fieldEscaped[index] {
            return try body(UnsafeRawBufferPointer(start: reader.buffer + start, count: end - start))
        }
        // Rare: a quoted field with doubled quotes; unescape into the reader's scratch space.
        reader.scratch.removeAll(keepingCapacity: true)
        var i = start
        while i < end {
            let byte = reader.buffer[i]
            reader.scratch.append(byte)
            i += byte == 0x22 ? 2 : 1
        }
        return try reader.scratch.withUnsafeBytes(body)
    }

    public func string(_ index: Int) -> String {
        withField(index) { String(decoding: $0, as: UTF8.self) }
    }

    public func isEmpty(_ index: Int) -> Bool {
        reader.fieldStarts[index] == reader.fieldEnds[index]
    }

    /// The record exactly as it stands in the file, without its line terminator.
    public var rawBytes: [UInt8] { reader.lastRecordBytes }
}
