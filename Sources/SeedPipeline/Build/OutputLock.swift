import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An exclusive lock on a build's output folder, held from before the build until the job ends.
///
/// Two builds into one folder would replace each other's outputs; the second waits (`wait`) or is
/// refused naming the holder's process. The lock is `flock(2)` on `<folder>/.seedbuild.lock`, which
/// holds the holder's pid; the kernel releases it when the process ends, however it ends. Holding
/// it, a build removes the temporary files (`.NAME.tmp-…`) a killed run left in the folder, and on
/// SIGINT or SIGTERM removes its own before the process ends.
public final class OutputLock: Sendable {
    public static let fileName = ".seedbuild.lock"

    public let directory: String
    private let descriptor: Int32

    /// - Throws: ``IngestError``: busy (exit 75) naming the holder, or cannot create output (73).
    public init(directory: String, wait: Bool) throws(IngestError) {
        self.directory = directory
        try Self.createFolder(directory)
        let path = (directory as NSString).appendingPathComponent(Self.fileName)
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw IngestError(
                .cannotCreateOutput, file: path,
                "cannot create the lock file (\(String(cString: strerror(errno)))); check the folder is writable")
        }
        if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let holder = Self.holder(descriptor)
            guard wait else {
                close(descriptor)
                throw IngestError(
                    .busy, file: directory,
                    "another seedbuild\(holder.map { " (pid \($0))" } ?? "") is writing to this folder; try again when it ends, or pass --wait"
                )
            }
            while flock(descriptor, LOCK_EX) != 0 {
                guard errno == EINTR else {
                    close(descriptor)
                    throw IngestError(.cannotCreateOutput, file: path, "cannot lock (\(String(cString: strerror(errno))))")
                }
            }
        }
        let pid = Data("\(getpid())\n".utf8)
        ftruncate(descriptor, 0)
        _ = pid.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        removeLeftovers()
        Interruption.shared.add(self)
    }

    /// Creates the output folder; exit 73 saying why when it cannot be (a file is there, no permission).
    static func createFolder(_ path: String) throws(IngestError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            var isDirectory: ObjCBool = false
            let why =
                FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
                ? "a file is there, not a folder" : error.localizedDescription
            throw IngestError(.cannotCreateOutput, file: path, "cannot create the output folder (\(why)); give --out a folder")
        }
    }

    deinit {
        Interruption.shared.remove(self)
        close(descriptor)
    }

    /// Removes every temporary file in the folder: only a run holding the lock writes them, so any
    /// found now were left by a run that was killed.
    public func removeLeftovers() {
        Self.removeTemporaryFiles(in: directory)
    }

    static func removeTemporaryFiles(in directory: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where isTemporary(name) {
            unlink((directory as NSString).appendingPathComponent(name))
        }
    }

    /// `.NAME.tmp-XXXXXXXX`, as ``AtomicFile/temporaryPath(for:)`` names them.
    static func isTemporary(_ name: String) -> Bool {
        name.hasPrefix(".") && name.contains(".tmp-")
    }

    private static func holder(_ descriptor: Int32) -> Int? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        guard count > 0 else { return nil }
        return Int(String(decoding: buffer.prefix(count), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

/// On SIGINT or SIGTERM: removes the temporary files of every locked output folder, then ends the
/// process with the signal's usual status (130, 143).
///
/// The handler is installed with `sigaction` before `add` returns, so no signal is lost to a window
/// where it is ignored and nothing listens yet (a dispatch source is set up asynchronously: a SIGTERM
/// right after the lock was taken could vanish, and a build blocked on a pipe never ended). The
/// handler only writes the signal's number to a pipe; a thread reading it does the rest.
///
/// The build's threads run on while that thread removes the files, until the signal it raises again
/// ends the process a moment later: a file created in that moment survives it, and one removed under
/// the build can make it fail first with its own status. So nothing a build writes there may come
/// and go on its own: SQLite's rollback journal beside the working store did, as auto-vacuum wrote
/// its header (left behind by 3 of 100 SIGTERMs sent as the store appeared); the build now turns the
/// journal off before anything writes.
///
/// Safe to share: `directories` and `installed` are read and written only under `lock`; `interruptionPipe` is set under
/// it, once, before a handler can read it.
final class Interruption: @unchecked Sendable {
    static let shared = Interruption()

    private let lock = NSLock()
    /// The folders of the locks held (not the locks: their deinit unregisters them).
    private var directories: [ObjectIdentifier: String] = [:]
    private var installed = false

    func add(_ outputLock: OutputLock) {
        lock.withLock {
            directories[ObjectIdentifier(outputLock)] = outputLock.directory
            guard !installed else { return }
            installed = true
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { return }
            _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
            interruptionPipe = ends[1]
            let reading = ends[0]
            Thread { [self] in
                var byte: UInt8 = 0
                while true {
                    let count = read(reading, &byte, 1)
                    if count == 1 { interrupted(Int32(byte)) } else if count < 0, errno == EINTR { continue } else { return }
                }
            }.start()
            for signalNumber in [SIGINT, SIGTERM] {
                var action = sigaction()
                #if canImport(Darwin)
                    action.__sigaction_u.__sa_handler = forwardSignal
                #else
                    action.__sigaction_handler.sa_handler = forwardSignal
                #endif
                sigemptyset(&action.sa_mask)
                action.sa_flags = SA_RESTART
                sigaction(signalNumber, &action, nil)
            }
        }
    }

    func remove(_ outputLock: OutputLock) {
        lock.withLock { _ = directories.removeValue(forKey: ObjectIdentifier(outputLock)) }
    }

    private func interrupted(_ signalNumber: Int32) {
        let current = lock.withLock { Array(directories.values) }
        for directory in current { OutputLock.removeTemporaryFiles(in: directory) }
        signal(signalNumber, SIG_DFL)
        kill(getpid(), signalNumber)
    }
}

/// The pipe's write end for ``forwardSignal``: set once, before any handler is installed.
nonisolated(unsafe) private var interruptionPipe: Int32 = -1

/// The signal handler: async-signal-safe, it only writes the signal's number to the pipe.
private func forwardSignal(_ signalNumber: Int32) {
    var byte = UInt8(truncatingIfNeeded: signalNumber)
    _ = write(interruptionPipe, &byte, 1)
}
