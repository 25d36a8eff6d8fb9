// swift-tools-version: 6.1

import PackageDescription

// Benchmarks for Strata: the same workloads against the raw SQLite C API (or plain Swift for
// the in-memory and JSON stores), Strata's stores and GRDB. A separate package, so users of Strata never build its
// benchmark-only dependencies.
let package = Package(
    name: "StrataBenchmarks",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "StrataPerfReport", targets: ["StrataPerfReport"]),
        .executable(name: "JSONStoreReport", targets: ["JSONStoreReport"]),
    ],
    dependencies: [
        .package(name: "Strata", path: ".."), // named, so it does not depend on the clone's folder name
        .package(url: "https://github.com/ordo-one/benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
    ],
    targets: [
        // The C boundary for the raw baseline.
        .systemLibrary(
            name: "CSQLiteBench",
            path: "Sources/CSQLiteBench",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),

        // The workloads, shared by the benchmark suite and the ratio report.
        .target(
            name: "BenchWorkloads",
            dependencies: [
                "CSQLiteBench",
                .product(name: "Strata", package: "Strata"),
                .product(name: "StrataMemory", package: "Strata"),
                .product(name: "StrataJSON", package: "Strata"),
                .product(name: "StrataPostgres", package: "Strata"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            path: "Sources/BenchWorkloads"
        ),

        // ordo-one/benchmark suite: `swift package benchmark`.
        .executableTarget(
            name: "StrataBenchmarks",
            dependencies: [
                "BenchWorkloads",
                .product(name: "Benchmark", package: "benchmark"),
            ],
            path: "Benchmarks/StrataBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),

        // Medians and ratios in one process: `swift run -c release StrataPerfReport`.
        .executableTarget(
            name: "StrataPerfReport",
            dependencies: ["BenchWorkloads"],
            path: "Sources/StrataPerfReport"
        ),
        // The JSON store against Foundation's JSONEncoder/JSONDecoder (issue D).
        .executableTarget(
            name: "JSONStoreReport",
            dependencies: [
                .product(name: "StrataCore", package: "Strata"),
                .product(name: "StrataJSON", package: "Strata"),
                .product(name: "StrataMemory", package: "Strata"),
            ],
            path: "Sources/JSONStoreReport"
        ),
    ]
)

for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.swiftLanguageMode(.v6))
    target.swiftSettings = settings
}
