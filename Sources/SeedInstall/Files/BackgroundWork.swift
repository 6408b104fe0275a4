import Foundation

/// Work started on a thread of its own, its value (or error) taken later with ``value()``: the one
/// way this package runs work beside the caller's.
///
/// ```swift
/// let hashing = BackgroundWork { () throws(StoreError) -> FileDigest in try FileDigest(of: path) }
/// // … the caller's own work …
/// let digest = try hashing.value()
/// ```
///
/// Safe to share: `result` is written once on the work's thread before `done` is signalled, and read only after waiting
/// on `done`.
package final class BackgroundWork<Value: Sendable, Failure: Error>: @unchecked Sendable {
    private var result: Result<Value, Failure>?
    private let done = DispatchSemaphore(value: 0)

    package init(_ work: @escaping @Sendable () throws(Failure) -> Value) {
        Thread { [self] in
            result = Result { () throws(Failure) in try work() }
            done.signal()
        }.start()
    }

    /// Waits for the work to end; the result stays for later calls.
    /// - Throws: what the work threw.
    package func value() throws(Failure) -> Value {
        done.wait()
        done.signal()
        return try result!.get()
    }
}
