import ArgumentParser
import TodoCore
import TodoStore
import TodoWording

/// `todo member key remove NAME RECIPIENT`.
struct MemberKeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key", abstract: "Members' device keys (an encrypted household).",
        discussion: """
            A device key is what `todo key` prints on a device (age1...). `todo member add \
            NAME --key age1...` grants one; `todo member key remove NAME age1...` takes one \
            back (a lost phone). `todo member` lists each member's keys.

            Example:
              todo member key remove Sam age1...
            """,
        subcommands: [MemberKeyRemoveCommand.self])
}

struct MemberKeyRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove a device key of a member (a lost or sold device).")

    @OptionGroup var household: HouseholdOptions
    @Argument(help: ArgumentHelp("The member.", valueName: "name")) var name: String
    @Argument(help: ArgumentHelp("The device key to remove (age1...).", valueName: "recipient")) var recipient: String

    func run() throws {
        let h = try household.open()
        let key = recipient.trimmingSpaces
        try h.removeKey(key, of: name.trimmingSpaces)
        let member = try h.knownMember(name.trimmingSpaces) ?? name.trimmingSpaces
        print("Removed device key \(MemberKeyText.short(key)) of \(Terminal.safe(member)).")
    }
}

/// How the command line shows device keys.
enum MemberKeyText {
    /// `age1abcd…wxyz`: enough to tell keys apart in a listing.
    static func short(_ recipient: String) -> String {
        let safe = Terminal.safe(recipient)
        guard safe.count > 16 else { return safe }
        return safe.prefix(8) + "…" + safe.suffix(4)
    }

    /// "; device keys age1abcd…wxyz, age1efgh…stuv" for a member's line; "" without keys.
    static func listed(_ recipients: [String]) -> String {
        guard !recipients.isEmpty else { return "" }
        return "; device key\(recipients.count == 1 ? "" : "s") " + recipients.map(short).joined(separator: ", ")
    }

    /// `member add NAME --key KEY`.
    static func grant(_ h: Household, _ key: String, to name: String) throws {
        let before = try h.keyRoster()
        let tomorrow = Env.today(h.clock).adding(days: 1)
        let known = try h.knownMember(name)
        let joins = try known.map { try h.roster().hasLeft($0, on: tomorrow) } ?? true
        let member = try h.grantKey(key, to: name)
        let canonical = try h.keyRoster().members.first { $0.name.lowercased() == member.lowercased() }?.recipients
            .first { $0.lowercased() == key.lowercased() } ?? key
        let had = before.members.contains { $0.name.lowercased() == member.lowercased() && $0.recipients.contains(canonical) }
        if had && !joins {
            print("\(Terminal.safe(member)) already has device key \(short(canonical)): nothing to add.")
            return
        }
        if joins { print("Added \(Terminal.safe(member)) to household \"\(h.name)\" from \(tomorrow).") }
        print("Granted device key \(short(canonical)) to \(Terminal.safe(member)).")
    }
}

/// What `todo status` says of the household's keys.
enum KeyStatusText {
    /// `"encrypted"` and `"recipients"` for `status --json`.
    static func json(_ h: HouseholdReader) throws -> [(String, JSONValue)] {
        let keys = try h.keyRoster()
        let members = JSONValue.object(keys.members.map { ($0.name, .array($0.recipients.map { .string($0) })) })
        return [
            ("encrypted", .bool(try h.remoteIsEncrypted())),
            ("recipients", .object([("members", members), ("recovery", keys.recovery.map { .string($0) } ?? .null)])),
        ]
    }

    /// "Encrypted: yes, to 3 devices of 2 members and the recovery key"; nil when the remote is
    /// not encrypted.
    static func line(_ h: HouseholdReader) throws -> String? {
        guard try h.remoteIsEncrypted() else { return nil }
        let keys = try h.keyRoster()
        let devices = keys.members.reduce(0) { $0 + $1.recipients.count }
        let m = keys.members.count
        let recovery = keys.recovery == nil ? "" : " and the recovery key"
        return "Encrypted: yes, to \(devices) device\(devices == 1 ? "" : "s") of \(m) member\(m == 1 ? "" : "s")\(recovery)"
    }
}
