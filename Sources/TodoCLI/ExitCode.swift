import TodoWording

/// A failure the command layer reports: a message of one or two lines and an exit code.
struct CLIError: Error {
    let message: String
    let exit: Exit
    var detail: String?

    init(_ message: String, exit: Exit, detail: String? = nil) {
        self.message = message
        self.exit = exit
        self.detail = detail
    }

    /// A failure that ends the command with `exit` and prints nothing (a quiet sync's failure
    /// that is not yet worth a cron mail; it is in the sync log).
    static func silent(_ exit: Exit) -> CLIError { CLIError("", exit: exit) }
}

extension CLIError {
    /// A failure nothing names: exit 70 with its cause, never a guess at what it means.
    init(internal cause: String) {
        self.init(Worded(internal: cause))
    }
}
