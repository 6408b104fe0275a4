// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "seedbuild",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "SeedStore", targets: ["SeedStore"]),
        // The model types SeedStore's API takes and gives (Model, Entity, ModelLoader), for apps to import.
        .library(name: "SeedModel", targets: ["SeedModel"]),
        // The build-time stages as a library, for scripting them and for the benchmarks package.
        .library(name: "SeedPipeline", targets: ["SeedPipeline"]),
        .executable(name: "seedbuild", targets: ["seedbuild"]),
    ],
    dependencies: [
        // Ranges, not pins: an app that depends on SeedStore and has its own GRDB or swift-crypto must
        // resolve. The lower bounds are the versions this package is built and tested with.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .target(
            name: "SeedModel",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")]
        ),
        .target(
            name: "SeedStore",
            dependencies: [
                "SeedModel",
                "CZlib",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "SeedPipeline",
            dependencies: [
                "SeedModel",
                "SeedStore",
                "CZlib",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "seedbuild",
            dependencies: [
                "SeedModel",
                "SeedStore",
                "SeedPipeline",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // What several test targets share: the Core Data oracle fixtures and their skip notices.
        .target(name: "SeedTestSupport", path: "Tests/SeedTestSupport"),
        .testTarget(name: "seedbuildTests", dependencies: ["seedbuild", "SeedStore", "SeedModel", "SeedTestSupport"]),
        .testTarget(
            name: "SeedStoreTests",
            dependencies: [
                "SeedStore", "SeedModel", "SeedTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "SeedPipelineTests",
            dependencies: [
                "SeedPipeline", "SeedStore", "SeedModel", "CZlib",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            exclude: ["fault_proxy.py", "hostile_server.py"]
        ),
        // An app's common tasks written against the public products only, as a consumer package would.
        .testTarget(name: "SeedAppTests", dependencies: ["SeedStore", "SeedModel"]),
        .testTarget(
            name: "SeedModelTests",
            dependencies: ["SeedModel", "SeedTestSupport", .product(name: "Crypto", package: "swift-crypto")]
        ),
    ]
)
