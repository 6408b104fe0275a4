import Crypto
import Foundation
import SeedInstall
import SeedModel

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Finishes a reader's SHA-256 of a regular file on a thread of its own (``BackgroundWork``): from
/// the offset the reader had hashed through (``CSVReader/handOffHash()``) to the size the file had
/// when it was opened, through a copy of the reader's descriptor (the same open file, whatever is
/// renamed over its path). ``SortedRuns/scan`` hands its hashing off so the scan, which the load
/// waits for, only skims. The readers that read the file afterwards check it did not change
/// (``CSVError/Kind/changedWhileRead``).
struct FileHash: Sendable {
    private let work: BackgroundWork<String, CSVError>

    /// Starts hashing at once.
    init(reader: CSVReader, continuing hasher: SHA256, from offset: Int) {
        let (path, descriptor, size) = (reader.path, reader.duplicateDescriptor(), reader.fileSize)
        let handed = HandedOff(hasher: hasher)
        work = BackgroundWork { () throws(CSVError) -> String in
            try Self.hashRest(path: path, descriptor: descriptor, hasher: handed.hasher, from: offset, size: size)
        }
    }

    /// The file's SHA-256 (64 lowercase hex characters), once the thread is done.
    func wait() throws(CSVError) -> String {
        try work.value()
    }

    /// A hasher handed to the hashing thread. Safe to share: the reader that made it stops hashing once
    /// it hands it off (``CSVReader/handOffHash()``), so only that thread uses it (swift-crypto 4
    /// declares `SHA256` `Sendable`, 3 does not).
    private struct HandedOff: @unchecked Sendable {
        let hasher: SHA256
    }

    private static func hashRest(path: String, descriptor: Int32, hasher: SHA256, from: Int, size: Int) throws(CSVError) -> String {
        guard descriptor >= 0 else {
            throw CSVError(path: path, line: 0, kind: .cannotOpen(String(cString: strerror(errno))))
        }
        defer { close(descriptor) }
        var hasher = hasher
        let capacity = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }
        var offset = from
        while offset < size {
            let count = pread(descriptor, buffer, min(capacity, size - offset), off_t(offset))
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                let why = count < 0 ? String(cString: strerror(errno)) : "it ended at byte \(offset) of \(size)"
                throw CSVError(path: path, line: 0, kind: .readFailed(why))
            }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(start: buffer, count: count))
            offset += count
        }
        return Data(hasher.finalize()).hexString
    }
}
