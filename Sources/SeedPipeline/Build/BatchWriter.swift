import Foundation

/// Runs ``EntityLoader/produce`` on its own thread, filling batches for the inserting thread.
///
/// Safe to share: `rowsRead` is written on the producer's thread before `done` is signalled and read only after
/// ``waitUntilDone()``; the rest are `let`s of Sendable types.
final class BatchProducer: @unchecked Sendable {
    private let loader: EntityLoader
    private let reader: CSVReader
    private let channel: BatchChannel
    private let progress: @Sendable (Int, Int) -> Void
    private let done = DispatchSemaphore(value: 0)
    private(set) var rowsRead = 0

    init(loader: EntityLoader, reader: CSVReader, channel: BatchChannel, progress: @escaping @Sendable (Int, Int) -> Void) {
        self.loader = loader
        self.reader = reader
        self.channel = channel
        self.progress = progress
    }

    func run() {
        let writer = BatchWriter(channel: channel)
        var failure: Error?
        do {
            rowsRead = try loader.produce(reader, progress: progress, isCancelled: { self.channel.isCancelled }, into: writer)
        } catch {
            failure = error
        }
        writer.finish(failure: failure)
        done.signal()
    }

    func waitUntilDone() {
        done.wait()
    }
}

/// The producer's side of a ``BatchChannel``: the batch rows are written into, sent on when full.
final class BatchWriter {
    private let channel: BatchChannel
    /// Replaced only on the producer's thread, which alone uses the writer.
    @exclusivity(unchecked) private(set) var batch: RowBatch

    struct Cancelled: Error {}

    init(channel: BatchChannel) {
        self.channel = channel
        batch = channel.nextEmpty()
    }

    /// Adds the row written into ``batch``; sends the batch when it is full.
    func commit(line: Int, placement: RowBatch.Placement, number: Int64 = 0) throws {
        batch.commitRow(line: line, placement: placement, number: number)
        if batch.isFull {
            channel.send(batch)
            // Take a fresh batch before stopping: the last one sent must not be sent again as the
            // final batch (the consumer would then wait forever for its end).
            batch = channel.nextEmpty()
            if channel.isCancelled { throw Cancelled() }
        }
    }

    /// The file starts over: the rows sent so far go in first, and the consumer empties the table
    /// before the next batch, whose rows below `line` are not rejected again.
    func restart(belowLine line: Int) throws {
        channel.send(batch)
        batch = channel.nextEmpty()
        if channel.isCancelled { throw Cancelled() }
        batch.restartBelowLine = line
    }

    /// Sends the last batch, with the producer's failure if it failed.
    func finish(failure: Error?) {
        batch.failure = failure
        batch.isLast = true
        channel.send(batch)
    }
}
