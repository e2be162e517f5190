import Glibc
import Foundation
import Testing

// Where things are: the package, its fixtures, the `todo` binary under test, and small file
// helpers every test target uses.

/// The value of environment variable `name`, nil when it is unset or empty.
public func environment(_ name: String) -> String? {
    guard let v = getenv(name) else { return nil }
    let s = String(cString: v)
    return s.isEmpty ? nil : s
}

/// The package root, found from this file's place in `Tests/TestKit/`.
public let packageRoot: String = {
    var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)
    return parts.joined(separator: "/")
}()

/// The package's `fixtures` folder.
public let fixturesRoot = packageRoot + "/fixtures"

/// The path of `relative` (say `merge/add-add` or `tasks/buy-milk-added.json`) in `fixtures/`.
public func fixture(_ relative: String) -> String { fixturesRoot + "/" + relative }

/// The `todo` executable under test: `$TODO_BIN`, else the `todo` built beside the test bundle
/// (whatever the scratch path), else one in a scratch directory of the package.
public let todoExecutable: String = {
    if let explicit = environment("TODO_BIN") { return explicit }
    var starts: [String] = []
    if let exe = resolvedLink("/proc/self/exe") { starts.append(exe) }
    if let first = CommandLine.arguments.first, first.hasPrefix("/") { starts.append(first) }
    if let bundle = Bundle.main.executablePath { starts.append(bundle) }
    // The test bundle lives in `<scratch>/<triple>/debug/` (inside an .xctest bundle on macOS),
    // next to the products: walk up a few directories looking for `todo`.
    for start in starts {
        var dir = directoryName(start)
        for _ in 0..<5 {
            if isExecutableFile(dir + "/todo") { return dir + "/todo" }
            dir = directoryName(dir)
        }
    }
    for scratch in [".build-e2e", ".build"] {
        for config in ["debug", "release"] {
            let candidate = "\(packageRoot)/\(scratch)/\(config)/todo"
            if isExecutableFile(candidate) { return candidate }
        }
    }
    return "todo-binary-not-found"
}()

public func resolvedLink(_ path: String) -> String? {
    var buffer = [CChar](repeating: 0, count: 4096)
    let n = readlink(path, &buffer, buffer.count - 1)
    guard n > 0 else { return nil }
    return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// `path` with links and `..` resolved; `path` itself when that fails.
public func resolvedPath(_ path: String) -> String {
    guard let r = realpath(path, nil) else { return path }
    defer { free(r) }
    return String(cString: r)
}

public func directoryName(_ path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}

public func isExecutableFile(_ path: String) -> Bool {
    var st = stat()
    return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFREG && access(path, X_OK) == 0
}

/// Whether the `todo` under test reads the tests' hooks (`TODO_ID_SEED`, `TODO_MAINTENANCE_GRACE`,
/// `TODO_MAINTENANCE_STOP_AT`): a debug build does; a release build, such as the installed
/// `TODO_BIN=/usr/bin/todo`, holds not even their names (docs/TESTING.md).
public let todoHasTestHooks: Bool = {
    // Unreadable or missing: counted as a debug build, so that the test runs and says why it fails.
    guard let data = try? Data(contentsOf: URL(fileURLWithPath: todoExecutable), options: .alwaysMapped) else { return true }
    return data.range(of: Data("TODO_MAINTENANCE_STOP_AT".utf8)) != nil
}()

/// The trait of a test that needs the test hook `hook` of a debug build: skipped, naming the
/// hook, when the `todo` under test is a release build (docs/TESTING.md, "Against installed
/// programs").
public func needsTestHook(_ hook: String) -> ConditionTrait {
    .enabled(
        if: todoHasTestHooks,
        Comment(rawValue: "needs the test hook \(hook), which only a debug build reads; \(todoExecutable) is a release build"))
}

/// The trait of a test that needs `program` absent from the system's folders (`folders`, which
/// the test puts on `PATH` for `todo`): skipped, naming the one found, when it is installed
/// there, as the package under test is for `TODO_BIN=/usr/bin/todo make test`.
public func needsNotInstalled(_ program: String, in folders: [String] = ["/usr/local/bin", "/usr/bin", "/bin"]) -> ConditionTrait {
    let found = folders.map { $0 + "/" + program }.first(where: isExecutableFile)
    return .enabled(
        if: found == nil, Comment(rawValue: "needs no \(program) on the system's PATH, and \(found ?? program) is installed"))
}

/// Whether the `todo` under test still has its symbol table (`nm` lists its symbols); a
/// package's programs are stripped.
public let todoHasSymbols: Bool = {
    // No nm, or it cannot run: counted as symbols there, so that the test runs and says why.
    guard let nm = ["/usr/bin/nm", "/bin/nm"].first(where: isExecutableFile),
        let r = try? runProcess(nm, ["--defined-only", todoExecutable], timeout: .seconds(120))
    else { return true }
    return !(r.exitCode == 0 && r.stdout.isEmpty) && !r.stderr.contains("no symbols")
}()

/// The trait of a test that reads the symbols of the `todo` under test: skipped when it is
/// stripped.
public func needsSymbols() -> ConditionTrait {
    .enabled(if: todoHasSymbols, Comment(rawValue: "reads the program's symbols, and \(todoExecutable) is stripped"))
}
