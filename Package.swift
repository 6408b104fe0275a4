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
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", exact: "3.12.3"),
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
        .testTarget(name: "seedbuildTests", dependencies: ["seedbuild", "SeedStore", "SeedModel"]),
        .testTarget(
            name: "SeedStoreTests",
            dependencies: ["SeedStore", "SeedModel", .product(name: "GRDB", package: "GRDB.swift")]
        ),
        .testTarget(
            name: "SeedPipelineTests",
            dependencies: ["SeedPipeline", "SeedStore", "SeedModel", .product(name: "GRDB", package: "GRDB.swift")],
            exclude: ["fault_proxy.py", "hostile_server.py"]
        ),
        // An app's common tasks written against the public products only, as a consumer package would.
        .testTarget(name: "SeedAppTests", dependencies: ["SeedStore", "SeedModel"]),
        .testTarget(
            name: "SeedModelTests",
            dependencies: ["SeedModel", .product(name: "Crypto", package: "swift-crypto")]
        ),
    ]
)
