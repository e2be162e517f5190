#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

/// Runs a helper program (git's credential helpers) with `input` on its standard input and
/// returns its standard output; nil if it could not be run or failed. `quiet`: its standard
/// error goes to /dev/null instead of ours.
func runProgram(_ argv: [String], input: String, environment extra: [String: String] = [:], quiet: Bool = false) -> String? {
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
    if quiet { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
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
    var pid = pid_t()
    let rc = posix_spawnp(&pid, argv[0], &actions, nil, cArgs, cEnv)
    close(inPipe[0])
    close(outPipe[1])
    if rc != 0 {
        close(inPipe[1])
        close(outPipe[0])
        return nil
    }
    let bytes = Array(input.utf8)
    var offset = 0
    // Ignore SIGPIPE for this write: a helper that exits early must not kill us.
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
