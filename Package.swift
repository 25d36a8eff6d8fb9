// swift-tools-version: 6.0

import CompilerPluginSupport
import Foundation
import PackageDescription

let package = Package(
    name: "Strata",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "Strata", targets: ["Strata"]),
        .library(name: "StrataCore", targets: ["StrataCore"]),
        .library(name: "StrataSQLite", targets: ["StrataSQLite"]),
        .library(name: "StrataJSON", targets: ["StrataJSON"]),
        .library(name: "StrataMemory", targets: ["StrataMemory"]),
        .library(name: "StrataPostgres", targets: ["StrataPostgres"]),
        .library(name: "StrataTesting", targets: ["StrataTesting"]),
        .executable(name: "SampleTrips", targets: ["SampleTrips"]),
    ],
    dependencies: [
        .package(url: "https://github.com/swiftlang/swift-syntax", "600.0.0"..<"604.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        .package(url: "https://github.com/pointfreeco/swift-macro-testing", from: "0.7.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.0"),
    ],
    targets: [
        // Macros and the core.
        .macro(
            name: "StrataMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax"),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
                .product(name: "SwiftDiagnostics", package: "swift-syntax"),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
            ],
            path: "Sources/StrataMacros"
        ),
        .target(
            name: "StrataCore",
            dependencies: ["StrataMacros", "CStrataThread", .product(name: "Logging", package: "swift-log")],
            path: "Sources/StrataCore"
        ),
        // The thread-local that StrataCore's materializing reads and writes for every model.
        .target(name: "CStrataThread", path: "Sources/CStrataThread"),

        // Backends.
        .systemLibrary(
            name: "CSQLite",
            path: "Backends/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]
        ),
        .systemLibrary(
            name: "CJSONC",
            path: "Backends/CJSONC",
            pkgConfig: "json-c",
            providers: [.apt(["libjson-c-dev"]), .brew(["json-c"])]
        ),
        .target(name: "StrataSQLite", dependencies: ["StrataCore", "CSQLite"], path: "Backends/SQLite"),
        .target(name: "StrataJSON", dependencies: ["StrataCore", "CJSONC"], path: "Backends/JSON"),
        .target(name: "StrataMemory", dependencies: ["StrataCore"], path: "Backends/Memory"),
        .target(
            name: "StrataPostgres",
            dependencies: ["StrataCore", .product(name: "PostgresNIO", package: "postgres-nio")],
            path: "Backends/Postgres"
        ),

        // The app-facing umbrella, the conformance suite and the sample.
        .target(name: "Strata", dependencies: ["StrataCore", "StrataSQLite"], path: "Sources/Strata"),
        .target(name: "StrataTesting", dependencies: ["StrataCore"], path: "Sources/StrataTesting"),
        .executableTarget(name: "SampleTrips", dependencies: ["Strata"], path: "Samples/SampleTrips"),

        // Tests.
        .testTarget(
            name: "StrataMacrosTests",
            dependencies: [
                "StrataMacros",
                .product(name: "MacroTesting", package: "swift-macro-testing"),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
            ]
        ),
        .testTarget(name: "StrataCoreTests", dependencies: ["Strata", "StrataMemory", "StrataJSON"]),
        .testTarget(name: "StrataMemoryTests", dependencies: ["StrataMemory", "StrataTesting"]),
        .testTarget(name: "StrataSQLiteTests", dependencies: ["Strata", "StrataSQLite", "StrataTesting"]),
        .testTarget(name: "StrataJSONTests", dependencies: ["StrataJSON", "StrataTesting", "StrataSQLite"]),
        .testTarget(
            name: "StrataPostgresTests",
            dependencies: ["StrataPostgres", "StrataTesting", "StrataSQLite", .product(name: "PostgresNIO", package: "postgres-nio")]
        ),
    ]
)

// SwiftData's name for Linux, where no system framework owns it: apps keep `import SwiftData`.
#if !canImport(Darwin)
package.products.append(.library(name: "SwiftData", targets: ["SwiftData"]))
package.targets += [
    .target(name: "SwiftData", dependencies: ["Strata"], path: "Sources/SwiftData"),
    .testTarget(name: "SwiftDataCompatibilityTests", dependencies: ["SwiftData", "StrataMemory"]),
]
#endif

// `STRATA_WITHOUT_POSTGRES=1` leaves the PostgreSQL store and its tests out of the package:
// `make test`'s ThreadSanitizer pass builds without them, because postgres-nio and its two
// copies of BoringSSL under ThreadSanitizer took about ten of `make test`'s thirty minutes.
// `make soak` runs the PostgreSQL suites under ThreadSanitizer instead.
if ProcessInfo.processInfo.environment["STRATA_WITHOUT_POSTGRES"] == "1" {
    package.products.removeAll { $0.name == "StrataPostgres" }
    package.targets.removeAll { $0.name == "StrataPostgres" || $0.name == "StrataPostgresTests" }
    package.dependencies.removeAll { $0.kind.isPostgresNIO }
}

// `STRATA_WITHOUT_MACRO_TESTS=1` leaves the macro expansion tests out as well: the
// ThreadSanitizer pass runs none of them, and building swift-macro-testing with its
// snapshot-testing dependencies under ThreadSanitizer only lengthened `make test`.
if ProcessInfo.processInfo.environment["STRATA_WITHOUT_MACRO_TESTS"] == "1" {
    package.targets.removeAll { $0.name == "StrataMacrosTests" }
    package.dependencies.removeAll { $0.kind.isMacroTesting }
}

extension Package.Dependency.Kind {
    /// Whether the dependency is postgres-nio.
    var isPostgresNIO: Bool { locationContains("postgres-nio") }

    /// Whether the dependency is swift-macro-testing.
    var isMacroTesting: Bool { locationContains("swift-macro-testing") }

    private func locationContains(_ name: String) -> Bool {
        if case .sourceControl(_, let location, _) = self { return location.contains(name) }
        return false
    }
}

for target in package.targets where target.type != .system {
    var settings = target.swiftSettings ?? []
    settings.append(.swiftLanguageMode(.v6))
    target.swiftSettings = settings
}
