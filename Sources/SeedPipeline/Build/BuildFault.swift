import Foundation
import GRDB
import SeedStore

/// Resource faults while writing a store, as the user can act on them: the path and the cause with
/// its `sysexits` status — never SQLite's raw message with the statement it was running.
enum BuildFault {
    /// Turns a SQLite error met while writing `path` into an ``IngestError``; other errors pass through.
    static func translate(_ error: Error, writing path: String) -> Error {
        guard let error = error as? DatabaseError else { return error }
        let folder = (path as NSString).deletingLastPathComponent
        let place = folder.isEmpty ? "." : folder
        switch error.resultCode {
        case .SQLITE_FULL:
            return IngestError(
                .ioFailure, file: path,
                "no space left on the device holding \(place); free some space (the build needs about twice the store's size) and build again"
            )
        case .SQLITE_IOERR:
            return IngestError(
                .ioFailure, file: path,
                "an I/O error while writing (\(error.message ?? "disk I/O error")); check the device holding \(place)")
        case .SQLITE_CANTOPEN, .SQLITE_READONLY, .SQLITE_PERM:
            return IngestError(
                .cannotCreateOutput, file: path,
                "cannot write the store (\(error.message ?? "cannot open")); check that \(place) exists and is writable")
        default:
            // Not a resource fault: keep it an internal error, without the statement text.
            return StoreError(
                .sqlite(code: error.extendedResultCode.rawValue), path: path,
                "SQLite error \(error.extendedResultCode.rawValue) while building the store: \(error.message ?? "unknown")")
        }
    }
}
