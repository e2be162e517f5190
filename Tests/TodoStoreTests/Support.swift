import Foundation
import Testing

// Every file of this target sees the test kit: processes, temporary directories, fixtures.
@_exported import TestKit

/// A temporary directory removed when the value goes away (see `TemporaryDirectory`).
typealias TempDir = TemporaryDirectory

typealias RunResult = Run

/// The identity of every commit the git CLI makes here.
let gitIdentity = [
    "GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.org", "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.org",
]

/// Runs a program (found in the system's directories when not a path) to completion with extra
/// environment; the git CLI judges what todo wrote.
@discardableResult
func run(
    _ args: [String], in dir: String? = nil, env: [String: String] = [:], input: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) throws -> RunResult {
    let name = args.first ?? ""
    let program = name.contains("/") ? name : try requireProgram(name, sourceLocation: sourceLocation)
    return try runProcess(
        program, Array(args.dropFirst()), environment: gitIdentity.merging(env) { _, new in new }, directory: dir,
        stdin: input.map(StandardInput.text) ?? .null, sourceLocation: sourceLocation)
}

/// Runs git and fails the test with its output when it fails.
@discardableResult
func git(_ args: String..., in dir: String, env: [String: String] = [:], sourceLocation: SourceLocation = #_sourceLocation)
    throws -> String
{
    let r = try run(["git"] + args, in: dir, env: env, sourceLocation: sourceLocation)
    if r.status != 0 {
        Issue.record("git \(args.joined(separator: " ")) failed: \(r.stderr)", sourceLocation: sourceLocation)
    }
    return r.stdout
}

/// The built `todo` executable (see `todoExecutable`).
func todoBinary() -> String { todoExecutable }
