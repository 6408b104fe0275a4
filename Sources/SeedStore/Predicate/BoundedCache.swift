import Foundation

/// A dictionary the SQL functions of every connection share, emptied when it grows past `limit`:
/// what it keeps is cheap to make again, and a fetch asks for the same few keys row after row.
///
/// `@unchecked Sendable` is safe because every access to `values` holds `lock`. An `NSLock`,
/// not `Mutex`: Synchronization's `Mutex` needs iOS 18 / macOS 15, below what the package declares.
final class BoundedCache<Key: Hashable, Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Key: Value] = [:]
    private let limit: Int

    init(limit: Int) {
        self.limit = limit
    }

    func value(for key: Key) -> Value? {
        lock.withLock { values[key] }
    }

    func keep(_ value: Value, for key: Key) {
        lock.withLock {
            if values.count >= limit { values.removeAll() }
            values[key] = value
        }
    }
}
