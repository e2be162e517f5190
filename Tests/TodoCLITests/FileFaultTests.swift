import FileKit
import Glibc
import SystemPackage
import TestKit
import Testing
import TodoWording

@testable import TodoCLI
@testable import TodoStore

/// Every call of the file layer failing with each errno that README's exit-code table names,
/// for each kind of file a front end words: the typed error keeps the call, the path and the
/// errno; the message names the file and says what happened (never "check its permissions"
/// but for permissions); the exit code is README's; the old file is whole and no temporary
/// file is left. The faults come from FileKit's test hook (`FileFaults`), scoped to each
/// test's own folder.
@Suite(.timeLimit(.minutes(5))) struct FileFaultTests {
    enum Kind: String, CaseIterable, Sendable {
        /// A household state file (`todo/sync-state`, the undo record): replaced, not fsynced.
        case householdState
        /// The pending-change record and the work tree's files: written in place.
        case householdInPlace
        /// A household file read whole (the pending-change record on recovery).
        case householdRead
        /// `remind`'s record of what it sent: replaced durably.
        case remindersState
        /// `calendar --out`: replaced durably.
        case calendarFeed

        /// The calls this kind makes, in order; a fault in any other is never reached.
        var calls: [FileError.Operation] {
            switch self {
            case .householdState: [.open, .write, .rename]
            case .householdInPlace: [.open, .write]
            case .householdRead: [.open, .read]
            case .remindersState, .calendarFeed: [.open, .write, .fsync, .rename]
            }
        }
    }

    static let errnos: [(Errno, Exit)] = [
        (.ioError, .ioError), (.tooManyOpenFiles, .busy), (.noSuchFileOrDirectory, .software),
        (.noSpace, .cannotWrite), (.readOnlyFileSystem, .cannotWrite),
    ]

    /// What a front end says for a failure of `kind`.
    static func run(_ kind: Kind, path: String, bytes: [UInt8]) -> (error: FileError?, worded: (message: String, exit: Exit)?) {
        do {
            switch kind {
            case .householdState: try TodoStore.writeFile(path, bytes, sync: false)
            case .householdInPlace: try TodoStore.writeFile(path, bytes, sync: false, inPlace: true)
            case .householdRead: _ = try WholeFile.read(path)
            case .remindersState:
                var state = ReminderState()
                state.members["Kim"] = .init(day: String(decoding: bytes, as: UTF8.self))
                do {
                    try state.save(path)
                } catch {
                    let cli = RemindMessages.config(error)
                    guard case .cannotWriteState(_, _, let errno) = error else { return (nil, (cli.message, cli.exit)) }
                    return (FileError(.write, path: path, errno: errno), (cli.message, cli.exit))
                }
            case .calendarFeed:
                do {
                    try FeedFile.replace(path, with: bytes)
                } catch let e as CLIError {
                    return (nil, (e.message, e.exit))
                }
            }
        } catch let error as FileError {
            let w = CLIError(StoreError.from(error, path: path))
            return (error, (w.message, w.exit))
        } catch {
            Issue.record("not a FileError: \(error)")
        }
        return (nil, nil)
    }

    @Test(arguments: Kind.allCases)
    func eachCallFailingLeavesTheOldFileAndSaysWhatHappened(_ kind: Kind) throws {
        let dir = try TemporaryFolder()
        let path = dir.path + "/file"
        for op in FileError.Operation.allCases {
            for (errno, exit) in Self.errnos {
                let old = Array("old \(op) \(errno.rawValue)\n".utf8)
                try WholeFile.write(path, old)
                let before = try entries(dir.path)
                FileFaults.inject(op, under: dir.path, errno: errno)
                defer { FileFaults.clear(under: dir.path) }
                let (error, worded) = Self.run(kind, path: path, bytes: Array("new\n".utf8))
                let what = "\(kind) \(op) \(errno)"
                guard kind.calls.contains(op) else {
                    #expect(worded == nil, "\(what): a call \(kind) does not make cannot fail it")
                    continue
                }
                let w = try #require(worded, "\(what) did not fail")
                if let error {
                    #expect(error.errno == errno, "\(what): \(error)")
                    if kind != .remindersState { #expect(error.operation == op, "\(what): \(error)") }
                }
                #expect(w.exit == exit, "\(what): exit \(w.exit.rawValue): \(w.message)")
                #expect(w.message.contains(dir.path), "\(what) names the file: \(w.message)")
                #expect(!w.message.lowercased().contains("permissions"), "\(what): \(w.message)")
                if kind != .remindersState && kind != .calendarFeed {
                    #expect(w.message.contains(Self.says(errno)), "\(what) says what happened: \(w.message)")
                } else {
                    #expect(w.message.contains(String(cString: strerror(errno.rawValue))), "\(what): \(w.message)")
                }
                if kind == .householdInPlace && op != .open {
                    // Written in place on purpose: the change's record puts it right (FORMAT.md,
                    // "Files that are not git objects").
                } else {
                    #expect(try WholeFile.read(path) == old, "\(what): the old file is whole")
                }
                #expect(try entries(dir.path) == before, "\(what): no temporary file is left")
            }
        }
    }

    /// A failed fsync of the folder comes after the rename: the new file is in place, whole,
    /// and the failure is still reported.
    @Test func aFailedFsyncOfTheFolderLeavesTheNewFileWhole() throws {
        let dir = try TemporaryFolder()
        let path = dir.path + "/feed.ics"
        try WholeFile.write(path, Array("old\n".utf8))
        FileFaults.inject(.fsync, under: dir.path, nth: 2, errno: .ioError)
        defer { FileFaults.clear(under: dir.path) }
        #expect(throws: FileError(.fsync, path: dir.path, errno: .ioError)) {
            try WholeFile.replace(path, with: Array("new\n".utf8))
        }
        #expect(try WholeFile.read(path) == Array("new\n".utf8))
        #expect(try entries(dir.path) == ["feed.ics"])
    }

    /// A short write is carried on, not taken as complete: a file larger than a pipe's buffer
    /// goes through whole, and so does one written to a file.
    @Test func theWholeFileIsWrittenAndReadBack() throws {
        let dir = try TemporaryFolder()
        var rng = SplitMix64(seed: 28)
        let bytes = (0..<300_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        try WholeFile.replace(dir.path + "/big", with: bytes)
        #expect(try WholeFile.read(dir.path + "/big") == bytes)
        #expect(try WholeFile.readIfPresent(dir.path + "/missing") == nil)
        #expect(throws: FileError(.open, path: dir.path + "/missing", errno: .noSuchFileOrDirectory)) {
            try WholeFile.read(dir.path + "/missing")
        }
    }

    /// What the household's message says for each errno.
    static func says(_ errno: Errno) -> String {
        switch errno {
        case .ioError: "The disk failed"
        case .tooManyOpenFiles: "Too many files are open"
        case .noSpace: "is full"
        case .readOnlyFileSystem: "read-only"
        default: "Could not use"
        }
    }
}

/// The names in a folder, sorted.
private func entries(_ path: String) throws -> [String] {
    guard let d = opendir(path) else { throw Errno(rawValue: errno) }
    defer { closedir(d) }
    var names: [String] = []
    while let e = readdir(d) {
        let name = withUnsafePointer(to: e.pointee.d_name) { $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) } }
        if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
}

/// A fresh folder under /tmp, removed with what is in it.
private final class TemporaryFolder {
    let path: String
    init() throws {
        var template = Array("/tmp/todo-file-faults.XXXXXX".utf8CString)
        guard let p = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else { throw Errno(rawValue: errno) }
        path = String(cString: p)
    }
    deinit {
        for name in (try? entries(path)) ?? [] { unlink(path + "/" + name) }
        rmdir(path)
    }
}
