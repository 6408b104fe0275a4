import Foundation
import SeedPipeline

/// One status line on a terminal, redrawn in place: entity, rows, rows per second, percent of bytes, ETA.
final class ProgressDisplay: @unchecked Sendable {
    private let lock = NSLock()
    private let start = Date()
    private var entity = ""
    private var entityStart = Date()
    private var drawn = false

    func update(_ progress: BuildProgress) {
        lock.withLock {
            if progress.entity != entity {
                entity = progress.entity
                entityStart = Date()
            }
            let elapsed = max(Date().timeIntervalSince(entityStart), 0.001)
            let rate = Double(progress.rowsRead) / elapsed
            let fraction = progress.totalBytes > 0 ? Double(progress.bytesRead) / Double(progress.totalBytes) : 1
            let remaining = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0
            let text = String(
                format: "%@: %@ rows, %@ rows/s, %.0f%% of %@, ETA %.0fs",
                progress.entity, Self.grouped(progress.rowsRead), Self.grouped(Int(rate)), fraction * 100,
                Self.bytes(progress.totalBytes), remaining)
            FileHandle.standardError.write(Data(("\r\u{1B}[K" + text).utf8))
            drawn = true
        }
    }

    /// A byte-counting phase (compression): bytes done, MB/s, percent, ETA.
    func updateBytes(_ label: String, done: Int64, total: Int64) {
        lock.withLock {
            let elapsed = max(Date().timeIntervalSince(start), 0.001)
            let rate = Double(done) / elapsed
            let fraction = total > 0 ? Double(done) / Double(total) : 1
            let remaining = rate > 0 ? Double(total - done) / rate : 0
            let text = String(
                format: "%@: %@ of %@, %@/s, %.0f%%, ETA %.0fs", label, Self.bytes(Int(done)), Self.bytes(Int(total)),
                Self.bytes(Int(rate)), fraction * 100, remaining)
            FileHandle.standardError.write(Data(("\r\u{1B}[K" + text).utf8))
            drawn = true
        }
    }

    func finish() {
        lock.withLock {
            if drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            drawn = false
        }
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
