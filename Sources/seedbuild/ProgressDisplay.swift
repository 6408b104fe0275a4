import Foundation
import SeedPipeline
import SeedStore

/// One status line on a terminal, redrawn in place and cut to the terminal's width: the phase
/// (reading ENTITY, indexing, digest, compressing, verifying, publishing), a bar, rows or bytes,
/// rate and ETA. Rate and ETA count from when the phase started and are shown once there is
/// something to measure. Only used when stderr is a terminal.
///
/// Safe to share: every mutable property is read and written only under `lock`.
final class ProgressDisplay: @unchecked Sendable {
    private let lock = NSLock()
    private var phase = ""
    private var phaseStart = Date()
    private var drawn = false
    private var lastDraw = Date.distantPast

    /// A display when stderr is a terminal and the output is not to be machine-read; nil otherwise.
    static func onTerminal(unless machineReadable: Bool) -> ProgressDisplay? {
        !machineReadable && isatty(STDERR_FILENO) == 1 ? ProgressDisplay() : nil
    }

    func update(_ progress: BuildProgress) {
        lock.withLock {
            let label = progress.entity.isEmpty ? progress.phase : "\(progress.phase) \(progress.entity)"
            let elapsed = begin(label)
            guard progress.phase == "reading" else { return draw("\(label)… \(Self.seconds(elapsed))") }
            let fraction = progress.totalBytes > 0 ? min(Double(progress.bytesRead) / Double(progress.totalBytes), 1) : nil
            var parts = ["\(label) \(Self.bar(fraction)) \(Self.grouped(progress.rowsRead)) rows"]
            if let fraction { parts[0] += " (\(Int(fraction * 100))%)" }
            if progress.rowsRead > 0, elapsed >= 0.2 {
                parts.append("\(Self.grouped(Int(Double(progress.rowsRead) / elapsed))) rows/s")
                if let fraction, fraction > 0 { parts.append("ETA \(Self.seconds(elapsed * (1 - fraction) / fraction))") }
            }
            draw(parts.joined(separator: ", "))
        }
    }

    /// An install's step (`seedbuild fetch`): bytes with a bar while downloading (a delta or the
    /// artifact) and inflating.
    func update(_ progress: InstallProgress) {
        let label =
            switch progress.phase {
            case .checkingRelease: "checking the release"
            case .downloadingDelta: "downloading the delta"
            case .copyingStore: "copying the installed store (this file system cannot clone it)"
            case .applyingDelta: "applying the delta"
            case .downloading: "downloading"
            case .inflating: "inflating"
            case .checkingStore: "checking the store"
            case .installed: "installed"
            }
        if [.downloadingDelta, .copyingStore, .downloading, .inflating].contains(progress.phase) {
            updateBytes(label, done: progress.completedBytes, total: progress.totalBytes ?? 0)
        } else {
            status(label)
        }
    }

    /// A byte-counting phase (compressing): bar, bytes done of total, rate, ETA.
    func updateBytes(_ label: String, done: Int64, total: Int64) {
        lock.withLock {
            // Ten redraws a second at most: an inflate reports every 2 MiB, hundreds of times a second.
            let isNew = label != phase
            let elapsed = begin(label)
            guard isNew || done >= total || Date().timeIntervalSince(lastDraw) >= 0.1 else { return }
            let fraction = total > 0 ? min(Double(done) / Double(total), 1) : nil
            var parts = ["\(label) \(Self.bar(fraction)) \(Self.bytes(Int(done)))" + (total > 0 ? " of \(Self.bytes(Int(total)))" : "")]
            if done > 0, elapsed >= 0.2 {
                let rate = Double(done) / elapsed
                parts.append("\(Self.bytes(Int(rate)))/s")
                if total > done { parts.append("ETA \(Self.seconds(Double(total - done) / rate))") }
            }
            draw(parts.joined(separator: ", "))
        }
    }

    /// A phase without a measure of its own (verifying, publishing).
    func status(_ label: String) {
        lock.withLock {
            _ = begin(label)
            draw("\(label)…")
        }
    }

    func finish() {
        lock.withLock {
            if drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            drawn = false
        }
    }

    /// Seconds since `label` began; a new label starts a new phase.
    private func begin(_ label: String) -> Double {
        if label != phase {
            phase = label
            phaseStart = Date()
        }
        return Date().timeIntervalSince(phaseStart)
    }

    private func draw(_ text: String) {
        FileHandle.standardError.write(Data(("\r\u{1B}[K" + Self.fit(text, columns: Self.terminalColumns())).utf8))
        drawn = true
        lastDraw = Date()
    }

    /// The line cut to one less than the terminal's width, so it never wraps.
    static func fit(_ text: String, columns: Int) -> String {
        let width = max(columns - 1, 10)
        return text.count <= width ? text : String(text.prefix(width - 1)) + "…"
    }

    static func terminalColumns() -> Int {
        var size = winsize()
        if ioctl(STDERR_FILENO, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return Int(ProcessInfo.processInfo.environment["COLUMNS"] ?? "") ?? 80
    }

    static func bar(_ fraction: Double?, width: Int = 16) -> String {
        guard let fraction else { return "[" + String(repeating: "·", count: width) + "]" }
        let filled = Int((fraction * Double(width)).rounded(.down))
        return "[" + String(repeating: "#", count: filled) + String(repeating: "·", count: width - filled) + "]"
    }

    static func seconds(_ value: Double) -> String {
        value < 60
            ? String(format: "%.0fs", value)
            : String(format: "%.0fm%02.0fs", (value / 60).rounded(.down), value.truncatingRemainder(dividingBy: 60))
    }

    static func grouped(_ number: Int) -> String {
        let digits = String(number)
        var out = ""
        for (index, char) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { out.append(",") }
            out.append(char)
        }
        return out
    }

    static func bytes(_ count: Int) -> String {
        let units = ["B", "KB", "MB", "GB"]
        var value = Double(count)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit])
    }
}
