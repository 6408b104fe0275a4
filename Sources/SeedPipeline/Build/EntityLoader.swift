import Foundation
import GRDB
import SeedModel
import SeedStore

/// Loads one CSV file into one entity's table: the measured hot loop of a build.
///
/// Values are converted from the reader's bytes and bound with the SQLite C functions, without a
/// `String` per field. A table stored `WITHOUT ROWID` is filled directly while its keys come in
/// order. A regular file whose keys descend early (naturally sorted postcodes: AB1 … AB9, then
/// AB10 … AB40 below AB9 in byte order) is read again with its ascending runs merged into key order
/// (``SortedRuns``, ``MergedRuns``), so every row is appended and hashed as it goes in. Otherwise
/// runs go straight in, several rows to a statement when no key of the table lies in their range; past
/// ``KeyOrderTracker/descentLimit`` descents, the rest goes to a staging table copied across
/// `ORDER BY` the key at the end (loading shuffled rows straight into the keyed table measured 3–4×
/// slower). Core Data's tables (keyed by `Z_PK`) take rows in any order: their key's unique index
/// is built after the load, or as rows arrive when the file cannot be read again. Parsing and converting
/// run on a second thread, so the two cores work at once, and a third hashes the rows that went in
/// (``DigestStage``). The loader is shared by the threads: `produce` runs on the producer's, the
/// digest reads only its immutable table description, everything else runs on the caller's, and
/// the rejects collector locks.
///
/// Safe to share: every stored property but `sourceRead` is a `let` set in `init`; `sourceRead` is
/// written on the producer's thread and read only after ``BatchProducer/waitUntilDone()``; the one
/// shared mutable part, ``RejectCollector``, locks.
final class EntityLoader: @unchecked Sendable {
    struct Result {
        var rowsRead = 0
        var rowsLoaded = 0
        /// Whether rows went to the staging table.
        var staged = false
        /// The `CREATE UNIQUE INDEX` statement already run for the tracked key (Core Data's layout).
        var keyIndex: String?
        /// Lines of out-of-order rows refused by the keyed table as duplicates (not yet rejected).
        var duplicateKeyLines: [Int] = []
        /// The table's content digest, hashed as rows went in, when they all went in key order.
        var tableDigest: Data?
    }

    let table: EntityTable
    let mapping: ColumnMapping
    private let file: String
    let header: [String]
    let references: [String: ReferenceKeys]
    let sourceFiles: [String: String]
    private let rejects: RejectCollector
    /// In Core Data's layout, whether keys out of order go in unchecked and the key's unique index is
    /// built once the file is in, proving them unique in one sort (``keyIndexPending``); when that
    /// fails the build loads again with this off, and the index keeps each key unique as it goes in.
    let indexesKeyAfterLoad: Bool
    /// When the build follows a base release and the producer numbers the rows (``BaseNumbers``):
    /// the base store and the highest number its channel issued for the entity.
    let numbering: (base: String, highWater: Int64)?

    init(
        table: EntityTable, mapping: ColumnMapping, file: String, header: [String],
        references: [String: ReferenceKeys], sourceFiles: [String: String], rejects: RejectCollector,
        indexesKeyAfterLoad: Bool = false, numbering: (base: String, highWater: Int64)? = nil
    ) {
        self.indexesKeyAfterLoad = indexesKeyAfterLoad
        self.numbering = numbering
        self.table = table
        self.mapping = mapping
        self.file = file
        self.header = header
        self.references = references
        self.sourceFiles = sourceFiles
        self.rejects = rejects
    }

    var stagingTable: String { "staging_\(table.name)" }

    var isRowidTable: Bool { table.primaryKey == .rowid }

    /// Rows bound to one multi-row `INSERT` (11 columns × 32 rows stays far below SQLite's parameter limit).
    static let rowsPerStatement = 32

    /// Loads the file: one thread parses and converts rows into batches while this one inserts them.
    func load(_ reader: CSVReader, into db: Database, progress: @escaping @Sendable (Int, Int) -> Void) throws -> Result {
        let targets = try Targets(loader: self, db: db)
        let chunk = Self.rowsPerStatement
        let boundList = boundFeeds
        let width = boundList.count
        // A numbered row binds its key first, then its values.
        let numbered = numbering != nil
        let stride = width + (numbered ? 1 : 0)
        let bound = UnsafeMutableBufferPointer<Int>.allocate(capacity: width)
        _ = bound.initialize(from: boundList)
        defer { bound.deallocate() }
        // A batch is filled, inserted and hashed by three threads in turn, so four keep each busy.
        let channel = BatchChannel(width: mapping.feeds.count, depth: 4)
        let producer = BatchProducer(loader: self, reader: reader, channel: channel, progress: progress)
        let digest = DigestStage(loader: self, channel: channel)
        Thread { producer.run() }.start()
        var result = Result()
        var failure: Error?
        var hashedRowsIntact = true
        // Rows below this line are inserted a second time (``produce``): not rejected again.
        var replayedBelow = 0
        while true {
            let batch = channel.receive()
            if failure == nil, let line = batch.restartBelowLine {
                do {
                    try db.execute(sql: "DELETE FROM \(quoteIdentifier(table.name))")
                } catch {
                    failure = error
                    channel.cancel()
                }
                result.rowsLoaded = 0
                result.duplicateKeyLines.removeAll()
                hashedRowsIntact = true
                replayedBelow = line
            }
            if failure == nil {
                do {
                    try batch.withArena { arena in
                        var row = 0
                        while row < batch.count {
                            if row + chunk <= batch.count, let together = try targets.chunk(batch, rows: row..<(row + chunk), arena: arena)
                            {
                                for k in 0..<chunk {
                                    if numbered { together.bind(Int32(k * stride + 1), batch.numbers[row + k]) }
                                    batch.bind(
                                        row: row + k, columns: UnsafeBufferPointer(bound), to: together, arena: arena,
                                        offset: k * stride + (stride - width))
                                }
                                // A failed constraint aborts the whole statement; then the rows go one by one below.
                                if try together.step() == .inserted {
                                    result.rowsLoaded += chunk
                                    row += chunk
                                    continue
                                }
                            }
                            defer { row += 1 }
                            let target = try targets.single(batch, row: row)
                            if numbered { target.bind(1, batch.numbers[row]) }
                            batch.bind(row: row, columns: UnsafeBufferPointer(bound), to: target, arena: arena, offset: stride - width)
                            let outcome = try target.step()
                            if case .constraintViolation = outcome, [.run, .descent].contains(batch.placements[row]) {
                                // An out-of-order key the table (or its key's index) holds: a duplicate, whose
                                // lines the uniqueness check names once the file is in.
                                result.duplicateKeyLines.append(batch.lines[row])
                                hashedRowsIntact = false
                            } else if case .constraintViolation(let message) = outcome {
                                if batch.lines[row] >= replayedBelow {
                                    rejects.add(
                                        RowError(
                                            file: file, line: batch.lines[row], column: nil, field: nil,
                                            reason: "the row breaks a constraint (\(message)); fix the value or the model", record: ""))
                                }
                                // The digest would hash a row the table lacks, and number the rows after it wrongly.
                                hashedRowsIntact = false
                            } else {
                                result.rowsLoaded += 1
                            }
                        }
                    }
                } catch {
                    failure = error
                    channel.cancel()
                }
            }
            let isLast = batch.isLast
            if failure == nil { failure = batch.failure }
            digest.submit(batch, intact: failure == nil && hashedRowsIntact)
            if isLast { break }
        }
        let tableDigest = digest.finish()
        producer.waitUntilDone()
        if let failure { throw failure }
        result.staged = targets.usesStagingTable
        result.keyIndex = targets.keyIndex
        result.rowsRead = producer.rowsRead
        result.tableDigest = hashedRowsIntact ? tableDigest : nil
        return result
    }

    /// Parses and converts every record, rejecting bad rows, and writes each good one into `writer`'s
    /// batches with where it goes (``RowBatch/Placement``). Runs on the producer thread.
    ///
    /// A keyed table's regular file whose first descent comes early (``mergesRuns``) is read on to its
    /// end to find its ascending runs (``SortedRuns``); then the writer restarts at the line of that
    /// descent, and every record goes through again, the runs merged in key order (``MergedRuns``) —
    /// or, when they are too many to merge, in file order. Rows before that line were handled once
    /// already: they are inserted again, but not rejected again.
    func produce(
        _ reader: CSVReader, progress: (Int, Int) -> Void, isCancelled: () -> Bool = { false }, into writer: BatchWriter
    ) throws -> Int {
        var keyTracker = keyFeed.map { KeyOrderTracker(feed: $0.feed, field: $0.field) }
        var source: any CSVRecordSource = reader
        // The file's SHA-256, when a scan handed the reader's hashing off to its own thread.
        var fileHash: FileHash?
        var mergeKey = mergesRuns(reader)
        var replayedBelow = 0
        let deferredKey = indexesKeyAfterLoad && keyIndex != nil
        var result = Result()
        var lastProgress = 0
        let (planList, lookupList, compoundKeys) = makePlans()
        // Unsafe buffers: reading an array's element retained its storage, and a key table (a struct of
        // three arrays) passed by value three times a row; ``lookUp`` reads it through a pointer instead.
        let plans = UnsafeMutableBufferPointer<FeedPlan>.allocate(capacity: planList.count)
        _ = plans.initialize(from: planList)
        let lookups = UnsafeMutableBufferPointer<ReferenceKeys>.allocate(capacity: lookupList.count)
        _ = lookups.initialize(from: lookupList)
        defer {
            plans.deallocate()
            lookups.deinitialize().deallocate()
        }
        let defaults = feedDefaults()
        // The builder numbers only a table whose key a field feeds (``SeedBuilder/numbering``).
        let numberFeed = keyFeed?.feed
        let numbers = try numbering.flatMap { numbering in
            try numberFeed.map { _ in
                try BaseNumbers(
                    base: numbering.base, table: table.name, keyColumn: trackedKeyColumn ?? "", primaryKey: table.keyColumn,
                    highWater: numbering.highWater)
            }
        }
        // Rows out of the base's order wait for the end of the file (``DeferredRows``), where nothing
        // depends on the order rows go in: the key's uniqueness is proven by its index after the load.
        var heldBack = numbers != nil && deferredKey ? DeferredRows(width: mapping.feeds.count) : nil
        while let record = try nextRecord(source, result: &result, replayedBelow: replayedBelow) {
            result.rowsRead += 1
            if result.rowsRead - lastProgress >= 65_536 {
                lastProgress = result.rowsRead
                progress(result.rowsRead, source.bytesRead)
            }
            let batch = writer.batch
            batch.beginRow()
            if let failed = convert(
                record, plans: UnsafeBufferPointer(plans), lookups: UnsafeBufferPointer(lookups), compoundKeys: compoundKeys,
                defaults: defaults, into: batch
            ) {
                guard record.line >= replayedBelow else { continue }
                let failure = describe(failed, record: record)
                rejects.add(
                    RowError(
                        file: file, line: record.line, column: failure.field + 1, field: header[failure.field],
                        reason: failure.reason, record: String(decoding: record.rawBytes, as: UTF8.self)))
                continue
            }
            var placement = RowBatch.Placement.direct
            let key = keyTracker.map { batch.pending($0.feed) }
            if let key, let observation = keyTracker?.observe(key.slot, arena: key.arena, line: record.line) {
                if case .descent = observation, let key = mergeKey {
                    mergeKey = nil
                    if let (again, hash) = readAgain(reader, fromDescent: record, key: key, isCancelled: isCancelled) {
                        source = again
                        fileHash = hash
                        keyTracker = keyFeed.map { KeyOrderTracker(feed: $0.feed, field: $0.field) }
                        replayedBelow = record.line
                        result.rowsRead = 0
                        lastProgress = 0
                        try writer.restart(belowLine: record.line)
                        continue
                    }
                }
                switch observation {
                case .ascending:
                    break
                case .duplicate(let previousLine):
                    guard record.line >= replayedBelow else { continue }
                    let field = keyTracker!.field
                    rejects.add(
                        RowError(
                            file: file, line: record.line, column: field + 1, field: header[field],
                            reason:
                                "duplicate \(table.entity.name).\(trackedKey ?? table.keyColumn) \"\(record.string(field))\": line \(previousLine) has it already; keys must be unique",
                            record: String(decoding: record.rawBytes, as: UTF8.self)))
                    continue
                case .run, .descent, .staging:
                    // Unchecked, a rowid table takes any row anywhere: no statement can stop halfway.
                    if !deferredKey { placement = observation.placement }
                }
            }
            var number: Int64 = 0
            if let numbers, let numberFeed {
                let key = batch.pending(numberFeed)
                let numbered = try numbers.number(for: key.slot, arena: key.arena)
                number = numbered.number
                if !numbered.inOrder, heldBack?.take(batch, line: record.line, placement: placement, number: number) == true { continue }
            }
            try writer.commit(line: record.line, placement: placement, number: number)
        }
        try heldBack?.send(to: writer)
        progress(result.rowsRead, source.bytesRead)
        if let fileHash {
            do {
                sourceRead = (reader.fileSize, try fileHash.wait())
            } catch {
                throw IngestError(error)
            }
        } else {
            sourceRead = (reader.bytesRead, reader.sha256)
        }
        if deferredKey {
            // In order, or to be proven by building the key's index.
            trackedKeyIsUnique = keyTracker.map { $0.descents == 0 } ?? false
            keyIndexPending = !trackedKeyIsUnique
        } else {
            // In order, or kept unique by the table's key or the key's unique index as they went in.
            trackedKeyIsUnique = keyTracker.map { !$0.isStaging } ?? false
        }
        return result.rowsRead
    }

    /// The next well-formed record; a record with the wrong field count or bad bytes is rejected and skipped,
    /// while a structural error (an unterminated quote) stops the build, since record bounds are then unknown.
    private func nextRecord(_ reader: any CSVRecordSource, result: inout Result, replayedBelow: Int) throws -> CSVRecord? {
        while true {
            do {
                return try reader.next()
            } catch  where error.isRecoverable {
                result.rowsRead += 1
                guard error.line >= replayedBelow else { continue }
                rejects.add(
                    RowError(
                        file: file, line: error.line, column: error.column, field: error.field, reason: error.reason,
                        record: String(decoding: reader.lastRecordBytes, as: UTF8.self)))
            } catch {
                throw IngestError(error)
            }
        }
    }

    /// The bytes the file held and their SHA-256, as read by the producer (nil hash: not read to its end).
    private(set) var sourceRead: (bytes: Int, sha256: String?) = (0, nil)

    /// At the first descent in `reader`'s keys, at `record`: when it comes early enough to read the file
    /// twice, scans the rest for its runs and returns where every record is read again from (the runs
    /// merged, or the file in order when they cannot be) and the thread finishing the file's hash.
    /// `record` is no longer valid afterwards (its line is).
    private func readAgain(
        _ reader: CSVReader, fromDescent record: CSVRecord, key: (field: Int, type: AttributeType), isCancelled: () -> Bool
    ) -> (any CSVRecordSource, FileHash?)? {
        let descent = (offset: reader.recordOffset, line: record.line)
        guard (descent.offset - reader.dataOffset) * SortedRuns.earlyDescentFraction <= reader.fileSize - reader.dataOffset else {
            return nil
        }
        var first = SortKey()
        first.load(record, field: key.field, type: key.type)
        let hash = reader.handOffHash().map { FileHash(reader: reader, continuing: $0.hasher, from: $0.through) }
        if let runs = SortedRuns.scan(reader, descent: descent, key: first, field: key.field, type: key.type, isCancelled: isCancelled) {
            return (MergedRuns(runs, of: reader, field: key.field, type: key.type), hash)
        }
        // Too many runs, or an error the reading in order reports in its place. Segments do not
        // hash: the file's hash comes from `hash`.
        return (CSVReader(segmentOf: reader, range: reader.dataOffset..<reader.fileSize, line: reader.dataLine), hash)
    }

    /// The key field and type by which `reader`'s runs can be merged: a keyed (`WITHOUT ROWID`)
    /// table's, loaded from a regular file alone.
    private func mergesRuns(_ reader: CSVReader) -> (field: Int, type: AttributeType)? {
        guard !isRowidTable, !table.isTree, reader.isRegularFile, let key = keyFeed,
            case .attribute(_, let attribute) = mapping.feeds[key.feed]
        else { return nil }
        return (key.field, attribute.type)
    }

    /// The attribute whose order and uniqueness the producer tracks: the key of a `WITHOUT ROWID`
    /// table, or, in Core Data's layout (rows keyed by `Z_PK`), the single-attribute uniqueness
    /// constraint — proven while rows arrive in its order, so no check is needed after the load.
    var trackedKey: String? {
        switch table.primaryKey {
        case .attribute(let key): key
        case .rowid: table.layout == .coreData && !table.isTree ? table.entity.singleAttributeKey?.name : nil
        }
    }

    /// Set by the producer when no row was staged: ``trackedKey``'s values are unique.
    private(set) var trackedKeyIsUnique = false

    /// Set by the producer when keys left their order and went in unchecked (``indexesKeyAfterLoad``):
    /// building ``keyIndex`` proves them unique, or fails on a duplicate.
    private(set) var keyIndexPending = false

    /// The column of ``trackedKey``.
    var trackedKeyColumn: String? {
        trackedKey.map { table.columnName(for: $0) }
    }

    /// Core Data's unique index on ``trackedKey`` (a rowid table's), built when keys leave their order.
    var keyIndex: (name: String, statement: String)? {
        guard isRowidTable, let key = trackedKey, let column = trackedKeyColumn else { return nil }
        return (
            CoreDataSchema.uniqueIndexName(entity: table.entity.name, constraint: [key]),
            CoreDataSchema.uniqueIndexStatement(entity: table.entity.name, constraint: [key], table: table.name, columns: [column])
        )
    }

    /// The feed and CSV field of ``trackedKey``.
    var keyFeed: (feed: Int, field: Int)? {
        guard let key = trackedKey else { return nil }
        for (index, feed) in mapping.feeds.enumerated() {
            if case .attribute(let field, let attribute) = feed, attribute.name == key { return (index, field) }
        }
        return nil
    }
}
