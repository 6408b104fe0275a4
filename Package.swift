// swift-tools-version:6.1
import PackageDescription

// The modules and what each may import are drawn in docs/architecture.md.
let package = Package(
    name: "seedbuild",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        // What a Core Data app links: download, check, inflate, re-stamp and switch a seed. No GRDB,
        // no runtime types; SQLite through its C API.
        .library(name: "SeedInstall", targets: ["SeedInstall"]),
        // The portable runtime (coordinator, contexts, predicates, records, stores) for apps that do
        // not use Core Data; it re-exports SeedInstall.
        .library(name: "SeedStore", targets: ["SeedStore"]),
        // The model types SeedStore's API takes and gives (Model, Entity, ModelLoader), for apps to import.
        .library(name: "SeedModel", targets: ["SeedModel"]),
        // The build-time stages as a library, for scripting them and for the benchmarks package.
        .library(name: "SeedPipeline", targets: ["SeedPipeline"]),
        .executable(name: "seedbuild", targets: ["seedbuild"]),
    ],
    dependencies: [
        // Ranges, not pins: an app that depends on SeedStore and has its own GRDB or swift-crypto must
        // resolve. The lower bounds are the versions this package is built and tested with
        // (scripts/check-lower-bounds builds it with swift-crypto's, in scripts/test).
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        // Only for `swift package generate-documentation` (scripts/docs builds the DocC catalogs); no target links it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // The system SQLite's C API where Apple's SQLite3 module is not there (Linux).
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        .target(
            name: "SeedModel",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")]
        ),
        // Files, metadata, Core Data's format, artifacts, inflating, transfer and the installer.
        .target(
            name: "SeedInstall",
            dependencies: [
                "SeedModel",
                "CZlib",
                .target(name: "CSQLite", condition: .when(platforms: [.linux])),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The runtime, on GRDB: values, schema, predicates, migration, coordinator, stores, contexts, records.
        .target(
            name: "SeedStore",
            dependencies: [
                "SeedModel",
                "SeedInstall",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .target(
            name: "SeedPipeline",
            dependencies: [
                "SeedModel",
                "SeedInstall",
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
                "SeedInstall",
                "SeedStore",
                "SeedPipeline",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // What several test targets share: temporary folders, the sample seed built and published,
        // the helper servers (nginx, hostile, fault proxy), the Core Data oracle fixtures.
        .target(
            name: "SeedTestSupport",
            dependencies: ["SeedModel", "SeedInstall", "SeedPipeline"],
            path: "Tests/SeedTestSupport",
            exclude: ["Servers/fault_proxy.py", "Servers/hostile_server.py"]
        ),
        .testTarget(name: "seedbuildTests", dependencies: ["seedbuild", "SeedInstall", "SeedStore", "SeedModel", "SeedTestSupport"]),
        .testTarget(
            name: "SeedInstallTests",
            dependencies: [
                "SeedInstall", "SeedModel", "SeedTestSupport", "CZlib",
                // Only to make fixtures (releases to install) and to open what was installed.
                "SeedPipeline", "SeedStore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "SeedStoreTests",
            dependencies: [
                "SeedStore", "SeedInstall", "SeedModel", "SeedTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .testTarget(
            name: "SeedPipelineTests",
            dependencies: [
                "SeedPipeline", "SeedStore", "SeedInstall", "SeedModel", "SeedTestSupport", "CZlib",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // An app's common tasks written against the public products only, as a consumer package would.
        .testTarget(name: "SeedAppTests", dependencies: ["SeedStore", "SeedModel"]),
        // A Core Data app's install written against SeedInstall's public API only (fixtures from SeedTestSupport).
        .testTarget(name: "SeedInstallAppTests", dependencies: ["SeedInstall", "SeedModel", "SeedTestSupport"]),
        .testTarget(
            name: "SeedModelTests",
            dependencies: ["SeedModel", "SeedTestSupport", .product(name: "Crypto", package: "swift-crypto")]
        ),
    ]
)
