import Foundation
import SeedInstall
import SeedPipeline
import SeedTestSupport
import Testing

/// Delta sizes on a chain of real releases, off unless `SEEDBUILD_DELTA_CHAIN` lists their stores
/// (`:`-separated, oldest first; each `.sqlite.gz` beside its store is the full artifact):
/// ```
/// SEEDBUILD_DELTA_CHAIN=out0/p.sqlite:out1/p.sqlite:… swift test --skip-build --filter DeltaMeasureTests
/// ```
@Suite("Row delta sizes", .enabled(if: ProcessInfo.processInfo.environment["SEEDBUILD_DELTA_CHAIN"] != nil))
struct DeltaMeasureTests {
    let directory = TemporaryDirectory()

    @Test func oneHopAndComposedDeltasOfAChain() throws {
        let stores = ProcessInfo.processInfo.environment["SEEDBUILD_DELTA_CHAIN"]!.split(separator: ":").map(String.init)
        var deltas: [Delta] = []
        for (base, new) in zip(stores, stores.dropFirst()) {
            let clock = ContinuousClock.now
            let path = directory.path("\(deltas.count).delta.gz")
            let summary = try StoreDiff().write(base: base, new: new, to: path)
            let artifact = try Self.size(new + ".gz")
            print(
                String(
                    format: "delta %@ → %@: %d operations, %lld bytes, %.3f%% of the %lld-byte artifact, diffed in %@",
                    base, new, summary.operations, summary.bytes, Double(summary.bytes) * 100 / Double(artifact), artifact,
                    "\(ContinuousClock.now - clock)"))
            deltas.append(try DeltaReader.read(path))
        }
        let composed = try Delta.compose(deltas)
        let path = directory.path("composed.delta.gz")
        let writer = try DeltaWriter(path: path, header: composed.header)
        for operation in composed.operations { try writer.write(operation) }
        try writer.finish()
        let (bytes, artifact) = (try Self.size(path), try Self.size(stores.last! + ".gz"))
        print(
            String(
                format: "composed %d hops: %d operations, %lld bytes, %.3f%% of the artifact",
                deltas.count, composed.operations.count, bytes, Double(bytes) * 100 / Double(artifact)))
        #expect(composed.header.to == deltas.last?.header.to)
    }

    private static func size(_ path: String) throws -> Int64 {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value ?? 0
    }
}
