import ArgumentParser
import TodoCore
import TodoStore

struct KeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key",
        abstract: "Print this device's key, made on first use.",
        discussion: """
            Prints this device's recipient (age1...), the public half of its identity, which \
            a member grants with `todo member add NAME --key age1...` (docs/ENCRYPTION.md). \
            The identity is in \
            $XDG_CONFIG_HOME/todo/identity (default ~/.config/todo/identity), made on first \
            use, mode 0600 in a 0700 folder, readable by `age -d -i`. It has no passphrase, \
            so that cron and the hub can sync; a file or folder others may read is refused \
            (exit 78). Works outside any household.

            Examples:
              todo key
              todo member add Sam --key $(todo key)
            """)

    @OptionGroup var output: JSONFlag

    func run() throws {
        let path = Env.identityPath
        let (identity, created) = try DeviceIdentity.loadOrCreate(path: path, now: Env.clock.nowMillis() / 1000)
        let recipient = DeviceIdentity.recipient(of: identity)
        if created { printError("todo: made this device's identity in \(Terminal.safe(path)) (keep it private; it has no passphrase).") }
        if output.json {
            print(JSONWriter.compact(.object([("recipient", .string(recipient)), ("identity", .string(path))])))
        } else {
            print(recipient)
        }
    }
}
