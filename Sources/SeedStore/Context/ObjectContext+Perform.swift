import Foundation

extension ObjectContext {
    /// Which queue a context's work runs on (Core Data's `NSManagedObjectContextConcurrencyType`).
    public enum ConcurrencyType: Sendable, Hashable {
        /// A serial queue of the context's own, for work off the main thread.
        case privateQueue
        /// The main queue, for objects a user interface shows. Its `perform` blocks run when the main
        /// queue is serviced (an app's run loop, or the main actor of a Swift program).
        case mainQueue
    }

    /// Runs `body` on the context's queue later and returns at once
    /// ([perform(_:)](https://developer.apple.com/documentation/coredata/nsmanagedobjectcontext/perform(_:))).
    ///
    /// ```swift
    /// background.perform {
    ///     let note = try? background.insert(entity: "Note")
    ///     …
    /// }
    /// ```
    public func perform(_ body: @escaping @Sendable () -> Void) {
        queue.async(execute: body)
    }

    /// Runs `body` on the context's queue and waits for it; at once when already on that queue.
    /// `body` may use the context's objects and return them to the caller's thread only when the
    /// caller does not share them on.
    public func performAndWait<T>(_ body: () throws -> T) rethrows -> T {
        if isOnQueue { return try body() }
        return try queue.sync(execute: body)
    }

    /// Runs `body` on the context's queue and returns its result to the awaiting task.
    ///
    /// ```swift
    /// let ids = try await background.perform {
    ///     try background.fetch(Postcode.self, where: FetchPredicate("county == %@", "Kent")).map(\.objectID)
    /// }
    /// ```
    /// The result must be `Sendable`: object IDs and values cross tasks, managed objects do not.
    /// - Throws: what `body` throws.
    public func perform<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }

    /// Whether the current thread is running this context's queue.
    var isOnQueue: Bool {
        switch concurrencyType {
        case .mainQueue: Thread.isMainThread
        case .privateQueue: DispatchQueue.getSpecific(key: Self.queueKey) == ObjectIdentifier(queue)
        }
    }

    static let queueKey = DispatchSpecificKey<ObjectIdentifier>()

    static func makeQueue(_ type: ConcurrencyType) -> DispatchQueue {
        switch type {
        case .mainQueue:
            return .main
        case .privateQueue:
            let queue = DispatchQueue(label: "SeedStore.ObjectContext")
            queue.setSpecific(key: queueKey, value: ObjectIdentifier(queue))
            return queue
        }
    }
}

/// A context held without keeping it alive, in the lists of contexts that receive merged saves.
struct WeakContext {
    weak var context: ObjectContext?

    init(_ context: ObjectContext) { self.context = context }
}
