import Foundation

/// Wall-clock seconds per build phase, in the order they ran, for `--json` and for tuning.
public struct PhaseTimings: Sendable, Equatable {
    public private(set) var phases: [(name: String, seconds: Double)] = []
    /// Told each phase's name as it starts (the build's progress display).
    var onStart: (@Sendable (String) -> Void)?

    public init() {}

    mutating func measure<T>(_ name: String, _ body: () throws -> T) rethrows -> T {
        onStart?(name)
        let start = DispatchTime.now().uptimeNanoseconds
        defer { phases.append((name, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)) }
        return try body()
    }

    public static func == (lhs: PhaseTimings, rhs: PhaseTimings) -> Bool {
        lhs.phases.map(\.name) == rhs.phases.map(\.name) && lhs.phases.map(\.seconds) == rhs.phases.map(\.seconds)
    }
}
