// swift-tools-version: 6.1

import PackageDescription

// libFuzzer over the JSON store's loader, in a package of its own. `make fuzz-json` (part of
// `make soak`) builds it with every module instrumented for AddressSanitizer and coverage and
// links libFuzzer's driver without its `main`: the executable's own `main` starts the driver.
let package = Package(
    name: "StrataFuzz",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "JSONLoaderFuzzer", targets: ["JSONLoaderFuzzer"]),
    ],
    dependencies: [
        .package(name: "Strata", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "JSONLoaderFuzzer",
            dependencies: [
                .product(name: "StrataJSON", package: "Strata"),
                .product(name: "StrataTesting", package: "Strata"),
            ]
        ),
    ]
)
