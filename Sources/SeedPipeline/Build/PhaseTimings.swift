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

    /// Adds the seconds `body` takes to phase `name`, which ran already (or starts it now).
    mutating func measure<T>(adding name: String, _ body: () throws -> T) rethrows -> T {
        guard let index = phases.firstIndex(where: { $0.name == name }) else { return try measure(name, body) }
        let start = DispatchTime.now().uptimeNanoseconds
        defer { phases[index].seconds += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
        return try body()
    }

    /// Puts a phase that was timed apart (a load thrown away) first.
    mutating func prepend(_ name: String, seconds: Double) {
        phases.insert((name, seconds), at: 0)
    }

    public static func == (lhs: PhaseTimings, rhs: PhaseTimings) -> Bool {
        lhs.phases.map(\.name) == rhs.phases.map(\.name) && lhs.phases.map(\.seconds) == rhs.phases.map(\.seconds)
    }
}
