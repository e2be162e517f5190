import TodoWording
import TodoCore
import ArgumentParser
import TodoStore

struct TimeZoneCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "timezone",
        abstract: "Show or set the household's time zone.",
        discussion: """
            The household's time zone decides what "today", "overdue" and a chore's current \
            occurrence mean for every member, whatever zone the machine running todo is set to \
            (a server on UTC included), and the zone of the times in `todo calendar`. It is \
            shared: setting it makes one commit that sync sends to everyone. Until it is set, \
            each machine uses its own zone (TZ, else /etc/localtime).

            ZONE is a name of the tz database (/usr/share/zoneinfo), like Europe/Paris.

            Examples:
              todo timezone
              todo timezone Europe/Paris
            """)

    @OptionGroup var household: HouseholdOptions
    @Argument(help: ArgumentHelp("The zone to record, like Europe/Paris.", valueName: "zone")) var zone: String?

    func run() throws {
        guard let zone else {
            let z = try household.openForReading().zone()
            switch z.source {
            case .recorded:
                print("Household time zone: \(z.rules.name)")
            case .machine:
                print("Household time zone: none recorded; this machine's zone (\(z.rules.name)) is used. Set one with `todo timezone ZONE`.")
            case .unknownRecorded(let name):
                print("Household time zone: \(Terminal.safe(name)), which this machine's tz database does not have; this machine's zone (\(z.rules.name)) is used.")
            }
            return
        }
        let name = zone.trimmingSpaces
        guard HouseholdZone.load(name) != nil else {
            throw CLIError(
                "\"\(Terminal.safe(name))\" is not a time zone of the tz database (/usr/share/zoneinfo). Use a name like Europe/Paris or America/New_York.",
                exit: .usage)
        }
        if try household.open().setZone(name) == nil {
            print("Household time zone: \(name) (unchanged).")
        } else {
            print("Household time zone set to \(name); members get it with their next sync.")
        }
    }
}
