import Foundation
import Testing

@testable import SeedInstall

/// The one worker pool of inflating and compressing: results come back in the order jobs were
/// submitted whatever thread finishes first, a job's error reaches the caller at that job, and
/// ``OrderedWorkers/stop()`` ends every thread with jobs still queued.
@Suite("Ordered worker pool")
struct OrderedWorkersTests {
    final class Box {
        var index = -1
        var square = 0
    }

    struct Failed: Error, Equatable {
        let index: Int
    }

    /// What the threads did, under a lock: the jobs started, the per-thread states made and released.
    final class Journal: @unchecked Sendable { // Safe to share: every var is read and written under `lock`.
        private let lock = NSLock()
        private var startedJobs: [Int] = []
        private var made = 0
        private var ended = 0

        func started(_ index: Int) { lock.withLock { startedJobs.append(index) } }
        func madeState() { lock.withLock { made += 1 } }
        func endedState() { lock.withLock { ended += 1 } }
        var started: [Int] { lock.withLock { startedJobs.sorted() } }
        var states: (made: Int, ended: Int) { lock.withLock { (made, ended) } }
    }

    /// A thread's own state, as a zlib stream would be: made on the thread, released when it exits.
    final class ThreadState {
        let journal: Journal
        init(_ journal: Journal) {
            self.journal = journal
            journal.madeState()
        }
        deinit { journal.endedState() }
    }

    /// Spins for a while that varies with the index, so later jobs often finish before earlier ones.
    private static func work(_ index: Int) -> Int {
        var value = index
        for step in 0..<((index * 7_919) % 13) * 20_000 { value = value &* 31 &+ step }
        return value == .min ? 0 : index * index
    }

    @Test("results come back in submission order on several threads", arguments: [1, 2, 4])
    func ordered(threads: Int) throws {
        let journal = Journal()
        let pool = OrderedWorkers<Box, Failed>(slots: (0...threads).map { _ in Box() }, threads: threads) {
            let state = ThreadState(journal)
            return { (index, box) throws(Failed) in
                state.journal.started(index)
                box.index = index
                box.square = Self.work(index)
            }
        }
        let count = 300
        var seen: [Int] = []
        for _ in 0..<count {
            while pool.submitted < count, pool.vacantSlot != nil { pool.submit() }
            let box = try pool.take()
            #expect(box.square == box.index * box.index)
            seen.append(box.index)
            pool.release()
        }
        pool.stop()
        #expect(seen == Array(0..<count))
        #expect(journal.started == Array(0..<count))
        #expect(journal.states.made == threads && journal.states.ended == threads)
    }

    @Test("a job's error is thrown at that job, the jobs before it are delivered, none after it starts", arguments: [1, 3])
    func failure(threads: Int) throws {
        let journal = Journal()
        let pool = OrderedWorkers<Box, Failed>(slots: (0..<4).map { _ in Box() }, threads: threads) {
            { (index, box) throws(Failed) in
                journal.started(index)
                // A later failure may well happen first; the caller still sees the earlier one first.
                if index == 7 { _ = Self.work(12) }
                if index == 7 || index == 9 { throw Failed(index: index) }
                box.index = index
            }
        }
        defer { pool.stop() }
        var delivered: [Int] = []
        var caught: Failed?
        for _ in 0..<20 {
            while pool.submitted < 20, pool.vacantSlot != nil { pool.submit() }
            do throws(Failed) {
                delivered.append(try pool.take().index)
                pool.release()
            } catch {
                caught = error
                break
            }
        }
        #expect(delivered == Array(0..<7))
        #expect(caught == Failed(index: 7))
        // The ring holds 4: nothing past job 10 was ever submitted, so nothing past it ran; on one
        // thread the jobs run in order, so none after the failure started.
        pool.stop()
        #expect(journal.started.allSatisfy { $0 <= 10 })
        if threads == 1 { #expect(journal.started == Array(0...7)) }
    }

    @Test("stop() with jobs queued and never taken ends every thread and releases its state")
    func stopWithJobsQueued() throws {
        let journal = Journal()
        let pool = OrderedWorkers<Box, Failed>(slots: (0..<6).map { _ in Box() }, threads: 3) {
            let state = ThreadState(journal)
            return { (index, box) throws(Failed) in
                state.journal.started(index)
                box.square = Self.work(index)
            }
        }
        while pool.vacantSlot != nil { pool.submit() }
        #expect(pool.submitted == 6)
        _ = try pool.take()
        pool.release()
        pool.stop()
        let started = journal.started
        #expect(started.contains(0))
        #expect(started.allSatisfy { (0..<6).contains($0) })
        #expect(journal.states.made == 3 && journal.states.ended == 3)
        // Stopping twice (a `defer` after an explicit stop) is harmless.
        pool.stop()
    }

    @Test("at most one ring of jobs is in flight: no vacant slot until the caller takes and releases one")
    func ring() throws {
        let pool = OrderedWorkers<Box, Failed>(slots: (0..<3).map { _ in Box() }, threads: 2) {
            { (index, box) throws(Failed) in box.index = index }
        }
        defer { pool.stop() }
        while pool.vacantSlot != nil { pool.submit() }
        #expect(pool.submitted == 3)
        let first = try pool.take()
        #expect(first.index == 0)
        #expect(pool.vacantSlot == nil)
        pool.release()
        #expect(pool.vacantSlot === first)
    }
}
