/// One record of a ``CSVReader``: a view of the reader's buffer, valid until the reader's next call.
public struct CSVRecord {
    // unowned(unsafe): a record never outlives its reader's next call, and this is the hot path;
    // the pointers are copied in so reading a field touches no class property.
    private unowned(unsafe) let reader: CSVReader
    private let bytes: UnsafeMutablePointer<UInt8>
    private let spans: UnsafeMutablePointer<CSVReader.FieldSpan>

    /// The line the record starts on (1 is the header).
    public let line: Int
    public let count: Int

    init(reader: CSVReader) {
        self.reader = reader
        bytes = reader.buffer
        spans = reader.spans
        line = reader.recordLine
        count = reader.fieldCount
    }

    /// Calls `body` with the field's bytes, quotes removed and doubled quotes made single. Use the
    /// bytes inside `body` and do not nest another call: a field with doubled quotes lives in the
    /// reader's scratch space, which the next such field reuses.
    ///
    /// Always inlined, with one call of `body`: the hot loop's closures then vanish, where a closure
    /// passed to a call captured its values (a struct of three arrays: three retains and releases a field).
    @inline(__always)
    public func withField<R>(_ index: Int, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let span = spans[index]
        // Rare: a quoted field with doubled quotes, unescaped into the reader's scratch space.
        let field = span.escaped ? reader.unescape(span) : UnsafeRawBufferPointer(start: bytes + span.start, count: span.end - span.start)
        return try body(field)
    }

    public func string(_ index: Int) -> String {
        withField(index) { String(decoding: $0, as: UTF8.self) }
    }

    public func isEmpty(_ index: Int) -> Bool {
        let span = spans[index]
        return span.start == span.end
    }

    /// The record exactly as it stands in the file, without its line terminator.
    public var rawBytes: [UInt8] { reader.lastRecordBytes }
}
