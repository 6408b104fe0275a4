import Foundation

/// A store that cannot be opened, read or written, naming the file and saying what to do.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// What went wrong with the store.
    public enum Kind: Sendable, Equatable {
        /// The file is missing.
        case notFound
        /// The file is not a seed store (not SQLite, wrong application id, missing tables).
        case notASeedStore
        /// The store carries no model to read it with: a Core Data store without a cached model
        /// (`Z_MODELCACHE`, which Core Data before iOS 8 / OS X 10.10 did not write). Give the
        /// model it was written with.
        case noModel
        /// SQLite reported an error.
        case sqlite(code: Int32)
        /// The operation is not allowed on this store (read-only, compressed, managed key).
        case refused
        /// A file-system operation failed.
        case io
    }

    /// What went wrong with the store.
    public let kind: Kind
    /// The store file, or the file that was being read (a manifest, a key).
    public let path: String
    /// What is wrong and what to do, without the path.
    public let message: String
    /// The SQL that failed, when SQLite reported the error.
    public let sql: String?

    /// An error of `kind` about the file at `path`; `sql` is the statement SQLite refused, if any.
    package init(_ kind: Kind, path: String, _ message: String, sql: String? = nil) {
        self.kind = kind
        self.path = path
        self.message = message
        self.sql = sql
    }

    /// `path: message`, and the SQL on a second line when there is one.
    public var description: String {
        var text = "\(path): \(message)"
        if let sql { text += "\n  SQL: \(sql)" }
        return text
    }
}
