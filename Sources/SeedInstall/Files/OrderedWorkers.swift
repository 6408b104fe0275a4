import Foundation

/// Threads that run numbered jobs and hand their results back in the order the jobs were submitted,
/// through a ring of slots: the one worker pool of inflating and compressing.
///
/// The caller owns the pool and is its only client: it fills the slot ``vacantSlot`` names (or
/// leaves it to the job), calls ``submit()``, and takes results in order with ``take()``, giving
/// each slot back with ``release()`` before its next use. Job `n` uses `slots[n % slots.count]`, so
/// at most `slots.count` jobs are in flight; the threads start them in order. Each thread calls
/// `makeJob` once, on itself, for its own state (a zlib stream), and that job for every index it
/// claims.
///
/// A job that throws fails its index: ``take()`` throws that error when it reaches it, and no job
/// after it starts. ``stop()`` (always call it, `defer` is the place) lets the jobs running end,
/// starts no other, and waits for the threads.
///
/// ```swift
/// let pool = OrderedWorkers(slots: buffers, threads: 2) { { (index, buffer) throws(GzipError) in try inflate(index, into: buffer) } }
/// defer { pool.stop() }
/// for _ in 0..<count {
///     while pool.submitted < count, pool.vacantSlot != nil { pool.submit() }
///     let buffer = try pool.take()
///     write(buffer)
///     pool.release()
/// }
/// ```
///
/// Safe to share: every `var` is used only under `condition`, which also hands each slot from thread to thread (below).
///
/// A slot belongs to one thread at a time: the caller's until ``submit()``, then the thread that
/// claims its job until the job ends, then the caller's again from ``take()`` to ``release()``.
package final class OrderedWorkers<Slot: AnyObject, Failure: Error>: @unchecked Sendable {
    /// Runs job `index` in `slot`, on the thread that made it.
    package typealias Job = (_ index: Int, _ slot: Slot) throws(Failure) -> Void

    private let slots: [Slot]
    private let condition = NSCondition()
    /// Jobs submitted, claimed by a thread, and taken back by the caller.
    private var submittedCount = 0
    private var claimed = 0
    private var taken = 0
    /// Whether the caller released what it took last.
    private var released = true
    /// The job each slot holds the result of, -1 while none.
    private var finished: [Int]
    private var failures: [Failure?]
    /// The first job that failed: none after it is started.
    private var firstFailure: Int?
    private var stopping = false
    private var running: Int

    /// Starts `threads` threads (at least one).
    /// - Parameters:
    ///   - slots: the ring; one more than `threads` lets the caller use one while every thread fills another.
    ///   - makeJob: called once on each thread, for that thread's job.
    package init(slots: [Slot], threads: Int, makeJob: @escaping @Sendable () -> Job) {
        precondition(!slots.isEmpty, "a pool needs a slot")
        self.slots = slots
        finished = Array(repeating: -1, count: slots.count)
        failures = Array(repeating: nil, count: slots.count)
        running = max(threads, 1)
        for _ in 0..<running {
            let thread = Thread { [self] in
                work(makeJob)
                // After the job (and the state it holds) is gone: stop() returns with every state released.
                condition.withLock {
                    running -= 1
                    condition.broadcast()
                }
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// How many jobs were submitted.
    package var submitted: Int {
        condition.withLock { submittedCount }
    }

    /// The slot the next ``submit()`` hands over, once its previous job was taken and released; nil
    /// while every slot is in flight.
    package var vacantSlot: Slot? {
        condition.withLock {
            let inUse = submittedCount - taken + (released ? 0 : 1)
            return inUse < slots.count ? slots[submittedCount % slots.count] : nil
        }
    }

    /// Hands job number ``submitted`` and its slot (``vacantSlot``, which must not be nil) to the threads.
    package func submit() {
        condition.withLock {
            precondition(submittedCount - taken + (released ? 0 : 1) < slots.count, "submit() without a vacant slot")
            submittedCount += 1
            condition.broadcast()
        }
    }

    /// Waits for the next job in submission order and returns its slot, the caller's until ``release()``.
    /// - Throws: the error the job threw, or that of an earlier job that failed.
    package func take() throws(Failure) -> Slot {
        let index = taken
        let outcome: Result<Slot, Failure> = condition.withLock {
            precondition(released && index < submittedCount, "take() without release() or a job submitted")
            let position = index % slots.count
            while finished[position] != index {
                if let firstFailure, firstFailure < index { return .failure(failures[firstFailure % slots.count]!) }
                condition.wait()
            }
            taken += 1
            released = false
            if let failure = failures[position] { return .failure(failure) }
            return .success(slots[position])
        }
        return try outcome.get()
    }

    /// Gives the slot ``take()`` returned back for a later job.
    package func release() {
        condition.withLock {
            released = true
            condition.broadcast()
        }
    }

    /// Starts no other job, lets those running end, and waits for every thread to exit.
    package func stop() {
        condition.withLock {
            stopping = true
            condition.broadcast()
            while running > 0 { condition.wait() }
        }
    }

    private func work(_ makeJob: () -> Job) {
        let job = makeJob()
        while true {
            let claim: Int? = condition.withLock {
                while !stopping && firstFailure == nil && claimed == submittedCount { condition.wait() }
                guard !stopping, firstFailure == nil else { return nil }
                claimed += 1
                return claimed - 1
            }
            guard let index = claim else { return }
            let position = index % slots.count
            let outcome = Result { () throws(Failure) in try job(index, slots[position]) }
            condition.withLock {
                finished[position] = index
                if case .failure(let error) = outcome {
                    failures[position] = error
                    if firstFailure.map({ index < $0 }) ?? true { firstFailure = index }
                } else {
                    failures[position] = nil
                }
                condition.broadcast()
            }
        }
    }
}
