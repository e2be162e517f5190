import Glibc
import FileKit
import GitKit
import TodoCore

/// `$XDG_STATE_HOME/todo/sync.log`: one line per sync, rotated at 256 KiB, no credentials.
struct SyncLog {
    static let limit = 256 << 10

    let directory: String?
    let household: String
    /// The remote as shown (credentials redacted).
    let remote: String
    let clock: WallClock
    let started = ContinuousClock.now

    init(directory: String?, household: String, remote: String?, clock: WallClock) {
        self.directory = directory
        self.household = household
        self.remote = remote.map(redactedURL) ?? "(none)"
        self.clock = clock
    }

    func append(_ report: SyncReport) {
        append(
            outcome: report.waiting ? "waiting" : "ok",
            fields: [
                "received": "\(report.received)", "sent": "\(report.sent)", "conflicts": "\(report.conflicts.count)",
                "rounds": "\(report.rounds)",
            ], message: nil)
    }

    /// A failure, and its first line as the front end worded it.
    func append(_ error: SyncError, said: String) {
        append(outcome: "error", fields: ["class": error.kind.rawValue], message: said)
    }

    func append(outcome: String, fields: [String: String], message: String?) {
        guard let dir = directory else { return }
        let seconds = (ContinuousClock.now - started) / .seconds(1)
        var current = ""
        for part in dir.split(separator: "/") {
            current += "/\(part)"
            mkdir(current, 0o755)
        }
        let path = dir + "/sync.log"
        var st = stat()
        if stat(path, &st) == 0 && Int(st.st_size) > Self.limit { rename(path, path + ".1") }
        var line = "\(isoMillis(clock.nowMillis())) household=\(household) remote=\(remote) outcome=\(outcome)"
        for k in fields.keys.sorted() { line += " \(k)=\(fields[k] ?? "")" }
        line += " duration_ms=\(Int(seconds * 1000))"
        if let message {
            line += " message=\"" + DisplayText.escaped(message.split(separator: "\n").first.map(String.init) ?? "") + "\""
        }
        line += "\n"
        // The log is a record, not a promise: a line that cannot be written is left out.
        try? WholeFile.append(path, Array(line.utf8), mode: 0o600)
    }
}
