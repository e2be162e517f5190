#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// Runs a helper program (git's credential helpers) with `input` on its standard input and
/// returns its standard output; nil if it could not be run or failed.
func runProgram(_ argv: [String], input: String, environment extra: [String: String] = [:]) -> String? {
    var inPipe: [Int32] = [0, 0]
    var outPipe: [Int32] = [0, 0]
    guard pipe(&inPipe) == 0 else { return nil }
    guard pipe(&outPipe) == 0 else {
        close(inPipe[0])
        close(inPipe[1])
        return nil
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
    posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
    posix_spawn_file_actions_addclose(&actions, inPipe[1])
    posix_spawn_file_actions_addclose(&actions, outPipe[0])
    var env: [String] = []
    var i = 0
    while let e = environ[i] {
        let s = String(cString: e)
        if let eq = s.firstIndex(of: "="), extra[String(s[..<eq])] != nil {
            i += 1
            continue
        }
        env.append(s)
        i += 1
    }
    for (k, v) in extra { env.append("\(k)=\(v)") }
    let cArgs = argv.map { strdup($0) } + [nil]
    let cEnv = env.map { strdup($0) } + [nil]
    defer {
        cArgs.forEach { free($0) }
        cEnv.forEach { free($0) }
    }
    // `todo` ignores SIGPIPE; the helper gets the default disposition a program expects.
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var defaults = sigset_t()
    sigemptyset(&defaults)
    sigaddset(&defaults, SIGPIPE)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF))
    var pid = pid_t()
    let rc = posix_spawnp(&pid, argv[0], &actions, &attributes, cArgs, cEnv)
    close(inPipe[0])
    close(outPipe[1])
    if rc != 0 {
        close(inPipe[1])
        close(outPipe[0])
        return nil
    }
    let bytes = Array(input.utf8)
    var offset = 0
    // Ignore SIGPIPE for this write: a helper that exits early must not kill us (the `todo`
    // executable ignores it anyway; this is for library callers that do not).
    let old = signal(SIGPIPE, SIG_IGN)
    while offset < bytes.count {
        let n = bytes.withUnsafeBytes { write(inPipe[1], $0.baseAddress! + offset, $0.count - offset) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { break }
        offset += n
    }
    signal(SIGPIPE, old)
    close(inPipe[1])
    var out: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = chunk.withUnsafeMutableBytes { read(outPipe[0], $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        if n <= 0 { break }
        out.append(contentsOf: chunk[0..<n])
        if out.count > 1 << 20 { break }
    }
    close(outPipe[0])
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    guard (status & 0x7f) == 0, (status >> 8) & 0xff == 0 else { return nil }
    return String(decoding: out, as: UTF8.self)
}
