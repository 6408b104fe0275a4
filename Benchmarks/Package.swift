// swift-tools-version:6.1
// The benchmark target, in its own package so the main package's build and tests never compile
// ordo-one/benchmark. Run from this folder: `swift package benchmark`.
import PackageDescription

let package = Package(
    name: "SeedBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        // Named, so the product reference below does not depend on the checkout folder's name.
        .package(name: "seedbuild", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .executableTarget(
            name: "SeedBenchmarks",
            dependencies: [
                .product(name: "SeedPipeline", package: "seedbuild"),
                .product(name: "SeedStore", package: "seedbuild"),
                .product(name: "Benchmark", package: "benchmark"),
                // The runtime benchmark's baseline reads the same rows through GRDB directly.
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            path: "Benchmarks/SeedBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        )
    ]
)
