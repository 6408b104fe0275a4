import Crypto
import Foundation
import SeedModel
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Finishes a reader's SHA-256 of a regular file on a thread of its own: from the offset the reader
/// had hashed through (``CSVReader/handOffHash()``) to the size the file had when it was opened,
/// through a copy of the reader's descriptor (the same open file, whatever is renamed over its path).
/// ``SortedRuns/scan`` hands its hashing off so the scan, which the load waits for, only skims.
/// The readers that read the file afterwards check it did not change (``CSVError/Kind/changedWhileRead``).
///
/// Safe to share: `hasher` and `result` are written only on the hashing thread, and `result` is read only after `done`
/// is signalled (``wait()``); the rest are `let`s.
final class FileHash: @unchecked Sendable {
    private let path: String
    private let descriptor: Int32
    private var hasher: SHA256
    private let from: Int
    private let size: Int
    private var result: Result<String, CSVError>?
    private let done = DispatchSemaphore(value: 0)

    /// Starts hashing at once.
    init(reader: CSVReader, continuing hasher: SHA256, from offset: Int) {
        path = reader.path
        descriptor = reader.duplicateDescriptor()
        size = reader.fileSize
        self.hasher = hasher
        from = offset
        Thread { [self] in
            result = hashRest()
            done.signal()
        }.start()
    }

    /// The file's SHA-256 (64 lowercase hex characters), once the thread is done.
    func wait() throws(CSVError) -> String {
        done.wait()
        done.signal()
        return try result!.get()
    }

    private func hashRest() -> Result<String, CSVError> {
        guard descriptor >= 0 else {
            return .failure(CSVError(path: path, line: 0, kind: .cannotOpen(String(cString: strerror(errno)))))
        }
        defer { close(descriptor) }
        let capacity = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }
        var offset = from
        while offset < size {
            let count = pread(descriptor, buffer, min(capacity, size - offset), off_t(offset))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                let why = count < 0 ? String(cString: strerror(errno)) : "it ended at byte \(offset) of \(size)"
                return .failure(CSVError(path: path, line: 0, kind: .readFailed(why)))
            }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(start: buffer, count: count))
            offset += count
        }
        return .success(Data(hasher.finalize()).hexString)
    }
}
