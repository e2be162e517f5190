import Foundation
import Testing

@testable import TodoStore

/// A temporary directory removed when the value goes away (kept when `TODO_KEEP_DIR` is set, to
/// look at a failed run with git).
final class TempDir {
    let path: String

    init() {
        let base = FileManager.default.temporaryDirectory.path
        path = base + "/todo-store-\(UUID().uuidString.prefix(12))"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { if ProcessInfo.processInfo.environment["TODO_KEEP_DIR"] == nil { try? FileManager.default.removeItem(atPath: path) } }
}

struct RunResult {
    let status: Int32
    let stdout: String
    let stderr: String
}

/// Runs a program to completion with extra environment; the git CLI judges what todo wrote.
@discardableResult
func run(_ args: [String], in dir: String? = nil, env: [String: String] = [:], input: String? = nil) throws -> RunResult {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    p.arguments = args
    if let dir { p.currentDirectoryURL = URL(fileURLWithPath: dir) }
    var environment = ProcessInfo.processInfo.environment
    environment["GIT_CONFIG_NOSYSTEM"] = "1"
    environment["GIT_AUTHOR_NAME"] = "Test"
    environment["GIT_AUTHOR_EMAIL"] = "test@example.org"
    environment["GIT_COMMITTER_NAME"] = "Test"
    environment["GIT_COMMITTER_EMAIL"] = "test@example.org"
    for (k, v) in env { environment[k] = v }
    p.environment = environment
    let out = Pipe()
    let err = Pipe()
    let inp = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = inp
    try p.run()
    if let input { inp.fileHandleForWriting.write(Data(input.utf8)) }
    try inp.fileHandleForWriting.close()
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return RunResult(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
}

/// Runs git and fails the test with its output when it fails.
@discardableResult
func git(_ args: String..., in dir: String, env: [String: String] = [:]) throws -> String {
    let r = try run(["git"] + args, in: dir, env: env)
    if r.status != 0 {
        Issue.record("git \(args.joined(separator: " ")) failed: \(r.stderr)")
    }
    return r.stdout
}

/// The built `todo` executable: $TODO_BIN, else beside the test bundle.
func todoBinary() -> String {
    if let bin = ProcessInfo.processInfo.environment["TODO_BIN"] { return bin }
    var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = dir.appendingPathComponent("todo").path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        dir = dir.deletingLastPathComponent()
    }
    return "todo"
}

/// The repository's fixtures folder.
let fixturesRoot: String = {
    var dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    while dir.path != "/" {
        let f = dir.appendingPathComponent("fixtures").path
        if FileManager.default.fileExists(atPath: f) { return f }
        dir = dir.deletingLastPathComponent()
    }
    return "fixtures"
}()
