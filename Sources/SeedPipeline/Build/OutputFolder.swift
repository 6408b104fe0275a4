import Foundation
import SeedStore

/// Creates a folder and its parents for output.
/// - Throws: ``IngestError`` (cannot create output, exit 73) naming the folder and the system's reason,
///   instead of Foundation's error dump.
func createOutputFolder(_ path: String) throws(IngestError) {
    do {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    } catch {
        // Foundation's error on Linux does not carry the system's: find the part of the path in the way.
        var existing = path
        while !existing.isEmpty, !FileManager.default.fileExists(atPath: existing) {
            existing = (existing as NSString).deletingLastPathComponent
        }
        if existing.isEmpty { existing = "." }
        let reason = AtomicFile.folderProblem(existing) ?? systemReason(error)
        throw IngestError(.cannotCreateOutput, file: path, "cannot create the folder (\(reason)); give a path whose folders can be created")
    }
}

/// The operating system's words for a file error ("Not a directory", "Permission denied"), else Foundation's.
func systemReason(_ error: Error) -> String {
    let error = error as NSError
    let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError
    if let posix = [underlying, error].compactMap({ $0 }).first(where: { $0.domain == NSPOSIXErrorDomain }) {
        return String(cString: strerror(Int32(posix.code)))
    }
    return error.localizedDescription
}
