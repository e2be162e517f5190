import ArgumentParser
import TodoCore
import TodoStore
import TodoWording

struct RemoteCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remote",
        abstract: "Show or change the household's remote.",
        discussion: """
            Remotes: a path or file:// URL to a bare repository, git://, ssh://user@host/path, \
            user@host:path, http:// or https://. Passwords in URLs are never shown.
            """,
        subcommands: [RemoteShowCommand.self, RemoteSetCommand.self, RemoteRemoveCommand.self],
        defaultSubcommand: RemoteShowCommand.self)
}

struct RemoteShowCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "Show the remote (the default).")
    @OptionGroup var household: HouseholdOptions

    func run() throws {
        let h = try household.openForReading()
        if let url = try h.remoteURL() {
            print(Terminal.safe(redactedURL(url)))
        } else {
            printError("No remote. Set one with `todo remote set URL`.")
        }
    }
}

struct RemoteSetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set", abstract: "Set the remote URL.",
        discussion: """
            With --encrypt, the remote (a new, empty repository) holds only ciphertext \
            (docs/ENCRYPTION.md): this device's key is granted to you and a recovery key is \
            printed once. The next sync sends the whole history, encrypted. Each other member \
            then runs `todo key`, is granted (`todo member add NAME --key age1…`), and runs \
            `todo remote set URL`; the old remote still holds everything in the clear and should \
            be deleted. An encrypted household's new remote stays encrypted.
            """)
    @OptionGroup var household: HouseholdOptions
    @Argument(help: "The remote URL.") var url: String
    @Flag(help: "Keep the household on this remote encrypted.") var encrypt = false

    func run() throws {
        let trimmed = url.trimmingSpaces
        if trimmed.isEmpty || trimmed.unicodeScalars.contains(where: Terminal.isUnsafe) {
            throw CLIError("That is not a usable remote URL.", exit: .usage)
        }
        let h = try household.open()
        if encrypt {
            try encryptRemote(h, trimmed)
            return
        }
        try h.setRemote(trimmed)
        print("Remote set to \(Terminal.safe(redactedURL(trimmed))).")
    }
}

/// `init --encrypt` and `remote set --encrypt`: grants this device's key (created on first use)
/// and shows the recovery key, once, alone on its line.
func encryptRemote(_ h: Household, _ url: String) throws {
    let (device, _) = try DeviceIdentity.loadOrCreate(path: Env.identityPath, now: Env.clock.nowMillis() / 1000)
    let recovery = try h.encryptRemote(url, device: DeviceIdentity.recipient(of: device))
    print("Remote set to \(Terminal.safe(redactedURL(url))), encrypted: only members' devices and the recovery key below can read it.")
    print("Recovery key (shown only now; keep it offline, on paper or a drive in a drawer: it reads the whole household):")
    print(recovery)
}

struct RemoteRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove the remote (work offline).")
    @OptionGroup var household: HouseholdOptions

    func run() throws {
        let h = try household.open()
        try h.setRemote(nil)
        print("Remote removed.")
    }
}
