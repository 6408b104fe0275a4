import Foundation
internal import GRDB

extension StoreError {
    /// Wraps an error GRDB or the runtime threw with the file it concerns.
    public init(_ error: Error, path: String, doing what: String) {
        if let error = error as? StoreError {
            self = error
        } else if let error = error as? DatabaseError {
            self.init(
                .sqlite(code: error.extendedResultCode.rawValue), path: path,
                "\(what): SQLite error \(error.resultCode.rawValue): \(error.message ?? "unknown")", sql: error.sql)
        } else {
            self.init(.io, path: path, "\(what): \(error)")
        }
    }
}
