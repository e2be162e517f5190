import Foundation
import Glibc
import Testing

/// "Reads never write" is the compiler's rule (docs/ARCHITECTURE.md, "Reading and changing"): a
/// file that calls a writing method on a `HouseholdReader`, or reaches the household behind it,
/// does not type-check against the built TodoStore, and its twin with read calls does, so the
/// first fails for its calls and not for its imports or flags.
@Suite(.kit, .timeLimit(.minutes(2)))
struct ReadViewTests {
    @Test func aReadViewHasNoWritingCall() throws {
        let reads = try typecheck(fixture("readonly-negative/Reads.swift"))
        #expect(reads.exitCode == 0, "the read calls type-check: \(reads)")
        let writes = try typecheck(fixture("readonly-negative/Writes.swift"))
        #expect(writes.exitCode == 1, "\(writes)")
        #expect(writes.stderr.contains("error: value of type 'HouseholdReader' has no member 'add'"), "\(writes)")
        #expect(writes.stderr.contains("error: 'household' is inaccessible due to 'internal' protection level"), "\(writes)")
        // Those two and nothing else: a missing module would be an error of its own.
        #expect(writes.stderr.components(separatedBy: ": error: ").count - 1 == 2, "\(writes)")
    }

    /// `swiftc -typecheck` of `file` against the modules built beside this test binary (and the
    /// C modules they import, by their module maps).
    func typecheck(_ file: String) throws -> Run {
        let swiftc = try #require(environment("SWIFTC") ?? findProgram("swiftc"), "swiftc is not on PATH")
        let exe = try #require(resolvedLink("/proc/self/exe"))
        let products = directoryName(exe)
        var scratch = directoryName(products)
        while !scratch.isEmpty, scratch != "/", !FileManager.default.fileExists(atPath: scratch + "/checkouts") {
            scratch = directoryName(scratch)
        }
        try #require(FileManager.default.fileExists(atPath: products + "/Modules/TodoStore.swiftmodule"), "\(products)")
        let maps = [
            products + "/*.build/module.modulemap", scratch + "/checkouts/*/Sources/*/module.modulemap",
            scratch + "/checkouts/*/Sources/*/include/module.modulemap", packageRoot + "/Sources/*/module.modulemap",
        ].flatMap(paths)
        let cache = TemporaryDirectory("read-view-typecheck")
        let arguments =
            ["-typecheck", "-module-cache-path", cache.path, "-I", products + "/Modules"]
            + maps.flatMap { ["-Xcc", "-fmodule-map-file=" + $0] } + [file]
        return try runProcess(swiftc, arguments, environment: ["TMPDIR": cache.path], timeout: .seconds(90))
    }

    /// The paths `pattern` matches (glob(3)), sorted.
    func paths(_ pattern: String) -> [String] {
        var g = glob_t()
        defer { globfree(&g) }
        guard glob(pattern, 0, nil, &g) == 0 else { return [] }
        return (0..<Int(g.gl_pathc)).compactMap { g.gl_pathv[$0].map { String(cString: $0) } }
    }
}
