// swift-tools-version:6.2
import PackageDescription

/// swift-system: `Errno`, and `FileDescriptor` for whole-file reads and writes.
let systemPackage = Target.Dependency.product(name: "SystemPackage", package: "swift-system")

/// libgit2 and the libraries it needs are linked from their static libraries (Debian's
/// libgit2-dev brings them all): loading libgit2.so and its twenty shared libraries cost about
/// 3 ms at every start, a tenth of a `todo add`. GSSAPI, which libgit2 calls only for a Kerberos
/// credential that todo never offers, is not linked (CInterposers/no_gssapi.c). The wraps send some of
/// libgit2's calls to CInterposers first (deferred_certificates.c, deferred_ssh2.c, deferred_tls.c).
let libgit2Link: [LinkerSetting] = [
    .unsafeFlags(
        ["libgit2.a", "libmbedtls.a", "libmbedx509.a", "libmbedcrypto.a", "libhttp_parser.a", "libssh2.a",
         "libcrypto.a", "libpcre2-8.a", "libz.a"].flatMap { ["-Xlinker", "-l:\($0)"] }
            + ["mbedtls_x509_crt_parse_file", "libssh2_init", "git_mbedtls_stream_global_init", "git_mbedtls_stream_new",
               "git_mbedtls_stream_wrap", "git_mbedtls__set_cert_location"].flatMap { ["-Xlinker", "--wrap=\($0)"] })
]

/// Every Swift target under Sources/: an import is internal unless it says `public import` (so a
/// module's public API names only what it chose to expose), and a file uses only members of the
/// modules it imports itself.
let strictImports: [SwiftSetting] = [.enableUpcomingFeature("MemberImportVisibility"), .enableUpcomingFeature("InternalImportsByDefault")]

let package = Package(
    name: "todo",
    // Linux only: Debian and its derivatives, x86_64 and arm64 (the NAS or Raspberry Pi a family
    // runs, and CI). The code calls Glibc, syncfs and /proc directly; SwiftPM has no way to
    // declare "Linux only", so README says it and other systems are not supported.
    products: [
        .executable(name: "todo", targets: ["todo"]),
        // The web page for members without a shell (docs/SERVE.md): its own executable, so
        // nothing of it is linked into `todo`.
        .executable(name: "todo-serve", targets: ["todo-serve"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        // Without its default trait, which would bring Foundation into every command's start-up.
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2", traits: []),
        // `todo-serve` only.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.14.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    ],
    targets: [
        // libgit2's headers (in the compiler's default search path once libgit2-dev is installed);
        // only GitKit imports it. How it is linked: `libgit2Link` above.
        .systemLibrary(name: "CLibgit2", providers: [.apt(["libgit2-dev"])]),
        // Calls of libgit2 that the executable takes over: the CA bundle's parse at start-up,
        // put off until a transfer needs it; connect, to turn Nagle's algorithm off.
        // Also helpers GitKit needs from the C library and zlib (syncfs, reading a loose object
        // back, inflating pack entries for PackReader).
        .target(name: "CInterposers"),
        // libxml2, for the request bodies of CalDAV (todo-serve only, linked as a shared library;
        // nothing of it reaches `todo`). Only TodoServe's CalDAV/DAVXML.swift imports it.
        .systemLibrary(name: "CLibXML2", pkgConfig: "libxml-2.0", providers: [.apt(["libxml2-dev"])]),
        // The file layer: whole-file reads and writes and the atomic replace, on swift-system's
        // FileDescriptor, failing with a `FileError` (call, path, errno). Below GitKit, whose own
        // read and write loops are these.
        .target(name: "FileKit", dependencies: [systemPackage], swiftSettings: strictImports),
        // git's binary and text formats decoded (pack index, pack entries, deltas, trees, commits,
        // loose object headers, the index) through one bounds-checked byte reader, failing with a
        // named `FormatError`: pure Swift, no libgit2, no zlib, fuzzed (`make fuzz`).
        .target(name: "GitFormats", swiftSettings: strictImports),
        // age's file format (age-encryption.org/v1) parsed and encoded: bech32 keys, strict
        // base64, the header and its stanzas, identity files, and the text of the encrypted
        // remote's key file; pure Swift, no crypto, no Foundation, bounds-checked like
        // GitFormats, fuzzed (`make fuzz`). For the encrypted remote (docs/ARCHITECTURE.md, "age").
        .target(name: "AgeFormat", swiftSettings: strictImports),
        // OpenSSL's libcrypto headers (libssl-dev); only Age imports it. Linked statically, as
        // libgit2 already links it into `todo` (`libgit2Link`), so no shared library is loaded.
        .systemLibrary(name: "CLibCrypto", providers: [.apt(["libssl-dev"])]),
        // age's encryption over AgeFormat with OpenSSL's libcrypto: X25519 identities and
        // recipients, the header MAC, the STREAM payload. TodoStore uses it for the device
        // identity. No Foundation (swift-crypto would bring it into every command's start-up).
        .target(
            name: "Age", dependencies: ["AgeFormat", "CLibCrypto"], swiftSettings: strictImports,
            linkerSettings: [.unsafeFlags(["-Xlinker", "-l:libcrypto.a"])]),
        // The one Swift module that talks to libgit2.
        .target(
            name: "GitKit", dependencies: ["CLibgit2", "CInterposers", "FileKit", "GitFormats", systemPackage], swiftSettings: strictImports,
            linkerSettings: libgit2Link),
        // Pure Swift: task model, clock, canonical encoding, dates, merge. Never prints or exits.
        // Optimized in debug builds too: it is pure Swift with no state to step through, the
        // code a release ships is optimized, and the property tests and every `todo` the
        // end-to-end tests start run its merge and schedules five times faster (docs/TESTING.md).
        .target(name: "TodoCore", swiftSettings: strictImports + [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        // A household: every transaction and query, sync, credentials; reads and writes through GitKit.
        // Age and AgeFormat: the device identity and the household's keys (docs/ENCRYPTION.md).
        .target(
            name: "TodoStore",
            dependencies: ["Age", "AgeFormat", "FileKit", "GitFormats", "GitKit", "TodoCore", systemPackage, .product(name: "Subprocess", package: "swift-subprocess")],
            swiftSettings: strictImports
        ),
        // The sentences a person reads for refused input and store or sync failures, and the exit
        // codes: shared by every front end (no ArgumentParser, no flag names).
        .target(name: "TodoWording", dependencies: ["FileKit", "TodoStore", "TodoCore", systemPackage], swiftSettings: strictImports),
        // The commands: parsing, output, messages and exit codes.
        .target(
            name: "TodoCLI",
            dependencies: ["TodoWording", "TodoStore", "TodoCore", "FileKit", systemPackage, .product(name: "ArgumentParser", package: "swift-argument-parser")],
            // The tests' hooks (TODO_ID_SEED, TODO_MAINTENANCE_GRACE, TODO_MAINTENANCE_STOP_AT;
            // docs/TESTING.md) are compiled into the debug build the tests run, never a release.
            swiftSettings: strictImports + [.define("TODO_TEST_HOOKS", .when(configuration: .debug))]
        ),
        // The executable exports the interposers, so that libgit2's calls bind to them.
        .executableTarget(name: "todo", dependencies: ["TodoCLI"], swiftSettings: strictImports),
        // The web front end (docs/SERVE.md): routes, pages, tokens, middleware, background sync.
        // A peer of TodoCLI over the store; never TodoCLI, GitKit or ArgumentParser.
        .target(
            name: "TodoServe",
            dependencies: [
                "TodoWording", "TodoStore", "TodoCore", "FileKit", "CLibXML2", "RemindNet",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strictImports
        ),
        // Reminders over the network (docs/ARCHITECTURE.md, "Reminders"): POSTs through
        // async-http-client, SMTP with STARTTLS or TLS over swift-nio and NIOSSL, certificates
        // checked against the system's authorities. In todo-serve's binary only: `todo remind`
        // hands a network delivery to `todo-serve deliver-reminder`, so `todo` links no network
        // client beyond libgit2's.
        .target(
            name: "RemindNet",
            dependencies: [
                "TodoStore", "TodoCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: strictImports
        ),
        .executableTarget(name: "todo-serve", dependencies: ["TodoServe"], swiftSettings: strictImports),
        // Helpers shared by the test targets only.
        .target(name: "TestKit", path: "Tests/TestKit"),
        // One value of every failure the front ends word, and the check that words stay
        // front-end neutral (docs/ARCHITECTURE.md, "Words").
        .target(name: "WordingSamples", dependencies: ["TodoStore", "TodoCore", systemPackage], path: "Tests/WordingSamples"),
        .testTarget(name: "TodoCoreTests", dependencies: ["TodoCore", "TestKit"]),
        .testTarget(name: "TodoStoreTests", dependencies: ["FileKit", "TodoStore", "TodoCore", "TestKit"]),
        .testTarget(name: "TodoWordingTests", dependencies: ["TodoWording", "TodoStore", "TodoCore", "TestKit", "WordingSamples"]),
        .testTarget(name: "TodoEndToEndTests", dependencies: ["TodoCore", "TestKit"]),
        // The commands' rendering (internal to TodoCLI) on hostile data.
        .testTarget(name: "TodoCLITests", dependencies: ["FileKit", "TodoCLI", "TodoWording", "TodoStore", "TodoCore", "TestKit", "WordingSamples"]),
        // age: the CCTV test vectors, interop with Debian's `age`, hostile headers.
        // (CInterposers: zlib, to inflate the vectors stored compressed; swift-crypto: the vectors'
        // SHA-256 and payload chunks sealed apart from `Age`'s OpenSSL calls.)
        .testTarget(name: "AgeTests", dependencies: ["Age", "AgeFormat", "CInterposers", "TestKit", .product(name: "Crypto", package: "swift-crypto")]),
        // The server's routes through Hummingbird's in-process client.
        .testTarget(
            name: "TodoServeTests",
            dependencies: [
                "FileKit", "TodoServe", "TodoStore", "TodoCore", "TestKit", "WordingSamples", .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ]
        ),
    ]
)
