import Foundation

/// Work started on a thread of its own, its value (or error) taken later with ``value()``.
///
/// Safe to share: `result` is written once on the work's thread before `done` is signalled, and read only after waiting
/// on `done`.
package final class BackgroundWork<Value: Sendable>: @unchecked Sendable {
    private var result: Result<Value, Error>?
    private let done = DispatchSemaphore(value: 0)

    package init(_ work: @escaping @Sendable () throws -> Value) {
        Thread { [self] in
            result = Result { try work() }
            done.signal()
        }.start()
    }

    /// Waits for the work to end; the result stays for later calls.
    package func value() throws -> Value {
        done.wait()
        done.signal()
        return try result!.get()
    }
}
