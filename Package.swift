// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "todo",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "todo", targets: ["todo"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2")
    ],
    targets: [
        // libgit2 through pkg-config; only GitKit imports it.
        .systemLibrary(
            name: "CLibgit2",
            pkgConfig: "libgit2",
            providers: [.apt(["libgit2-dev"])]
        ),
        // Calls of libgit2 that the executable takes over: the CA bundle's parse at start-up,
        // put off until a transfer needs it; connect, to turn Nagle's algorithm off.
        // Also two helpers GitKit needs from the C library and zlib (syncfs, reading a loose
        // object back).
        .target(name: "CInterposers", linkerSettings: [.linkedLibrary("z")]),
        // The one Swift module that talks to libgit2.
        .target(name: "GitKit", dependencies: ["CLibgit2", "CInterposers"]),
        // Pure Swift: task model, clock, canonical encoding, dates, merge. Never prints or exits.
        .target(name: "TodoCore"),
        // A household repository: reads and writes tasks through GitKit.
        .target(name: "TodoStore", dependencies: ["GitKit", "TodoCore"]),
        // The commands: parsing, output, exit codes.
        .target(
            name: "TodoCLI",
            dependencies: [
                "TodoStore", "TodoCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The executable exports the interposers, so that libgit2's calls bind to them.
        .executableTarget(
            name: "todo", dependencies: ["TodoCLI"],
            linkerSettings: [
                .unsafeFlags([
                    "-Xlinker", "--export-dynamic-symbol=mbedtls_x509_crt_parse_file",
                    "-Xlinker", "--export-dynamic-symbol=connect",
                ])
            ]
        ),
        // Helpers shared by the test targets only.
        .target(name: "TestKit", path: "Tests/TestKit"),
        .testTarget(name: "TodoCoreTests", dependencies: ["TodoCore", "TestKit"]),
        .testTarget(name: "TodoStoreTests", dependencies: ["TodoStore", "TodoCore", "TestKit"]),
        .testTarget(name: "TodoEndToEndTests", dependencies: ["TodoCore", "TestKit"]),
    ]
)
