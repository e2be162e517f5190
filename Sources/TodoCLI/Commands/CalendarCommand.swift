import TodoWording
import Glibc
import ArgumentParser
import FileKit
import SystemPackage
import TodoCore
import TodoStore

struct CalendarCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "calendar",
        abstract: "The household's dates as an iCalendar feed.",
        discussion: """
            Dated tasks, and each chore's occurrences for the next weeks with whose turn each is, \
            as events (VEVENT) in the household's time zone (`todo timezone`). An overdue task or \
            occurrence shows on today, marked overdue since its date, until it is done; done ones \
            stay on their day for two weeks, marked done. Events keep their UID when the feed is \
            made again, so a subscribed calendar updates them in place.

            Without --out the feed goes to standard output. With --out it replaces FILE at once \
            (a reader never sees half a feed): safe from cron.

            Examples:
              todo calendar --mine --out ~/public/kim.ics
              todo calendar --member Kim --weeks 4 --alarm 30m --alarm-time 07:30
              crontab: */15 * * * * todo sync --quiet && todo calendar --mine --out FILE
            """)

    @OptionGroup var household: HouseholdOptions
    @Option(help: ArgumentHelp("Only this member's tasks and turns.", valueName: "name")) var member: String?
    @Flag(help: "Only your tasks and turns.") var mine = false
    @Option(help: "How many weeks from today (1 to 104).") var weeks = 8
    @Option(help: ArgumentHelp("Write the feed to FILE (replaced atomically) instead of standard output.", valueName: "file"))
    var out: String?
    @Flag(help: "Add each event as a to-do (VTODO) too.") var todos = false
    @Option(help: ArgumentHelp("Add alarms: this long before a timed event (like 30m, 2h, 1d).", valueName: "duration"))
    var alarm: String?
    @Option(help: ArgumentHelp("An all-day event's alarm time on its day (default 08:00; implies alarms).", valueName: "HH:MM"))
    var alarmTime: String?

    func validate() throws {
        if member != nil && mine { throw ValidationError("--member and --mine cannot be used together.") }
        if !CalendarFeedOptions.weeksRange.contains(weeks) {
            throw ValidationError("--weeks must be from 1 to 104 (two years); \(weeks) is not.")
        }
        if let alarm, Self.alarmMinutes(alarm) == nil {
            throw ValidationError("--alarm must be a duration from 1m to 7d like 30m, 2h or 1d; \"\(alarm)\" is not.")
        }
        if let alarmTime, Self.timeOfDay(alarmTime) == nil {
            throw ValidationError("--alarm-time must be a time of day HH:MM like 08:00; \"\(alarmTime)\" is not.")
        }
        if let member, member.trimmingSpaces.isEmpty { throw ValidationError("--member needs a name.") }
    }

    static func alarmMinutes(_ text: String) -> Int? {
        guard let ms = DurationInput.milliseconds(text), ms >= 60_000, ms <= 7 * 86_400_000, ms % 60_000 == 0 else {
            return nil
        }
        return Int(ms / 60_000)
    }

    static func timeOfDay(_ text: String) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 2, let h = Int(parts[0]), let m = Int(parts[1]),
            (0..<24).contains(h), (0..<60).contains(m), parts.allSatisfy({ $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } })
        else { return nil }
        return h * 60 + m
    }

    func run() throws {
        // The folder is checked first, so that a bad --out fails before any work.
        let target = try out.map { try FeedFile.check($0) }
        let h = try household.openForReading()
        var options = CalendarFeedOptions()
        options.taskReference = { "todo show \($0)" }
        options.weeks = weeks
        options.todos = todos
        options.member = mine ? try h.identity().name : member?.trimmingSpaces
        if alarm != nil || alarmTime != nil {
            options.alarmBefore = alarm.flatMap(Self.alarmMinutes) ?? 30
            options.alarmTimeOfDay = alarmTime.flatMap(Self.timeOfDay) ?? 8 * 60
        }
        options.name = options.member.map { "\($0) (\(h.name))" } ?? h.name
        let bytes: [UInt8]
        switch try h.calendar(options) {
        case .success(let b): bytes = b
        case .failure(.unknownMember(let name, let known)):
            let list = known.isEmpty ? "none yet" : known.prefix(20).map { Terminal.safe($0) }.joined(separator: ", ")
            throw CLIError(
                "No member \"\(Terminal.safe(name))\" in household \"\(h.name)\": no task, rotation or change names them. Members: \(list).",
                exit: .notFound)
        }
        if let target {
            try FeedFile.replace(target, with: bytes)
        } else {
            _ = try? FileDescriptor.standardOutput.writeAll(bytes)  // standard output closed (a pipe's reader gone): nobody to tell
        }
    }
}

/// Writing a feed file: a temporary file beside it, written, flushed to disk and renamed over it.
enum FeedFile {
    /// `path` when its folder exists and can be written; else the error to report.
    static func check(_ path: String) throws -> String {
        guard !path.isEmpty, !path.hasSuffix("/") else { throw CLIError("--out needs a file name, not \"\(Terminal.safe(path))\".", exit: .usage) }
        let dir = path.contains("/") ? String(path[..<path.lastIndex(of: "/")!]) : "."
        let folder = dir.isEmpty ? "/" : dir
        var st = stat()
        guard stat(folder, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
            throw CLIError(
                "Cannot write the feed to \(Terminal.safe(path)): the folder \(Terminal.safe(folder)) does not exist. Create it first.",
                exit: .cannotWrite)
        }
        guard access(folder, W_OK | X_OK) == 0 else {
            throw CLIError(
                "Cannot write the feed to \(Terminal.safe(path)): the folder \(Terminal.safe(folder)) is not writable.",
                exit: .cannotWrite)
        }
        if stat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR {
            throw CLIError("Cannot write the feed to \(Terminal.safe(path)): it is a folder.", exit: .cannotWrite)
        }
        return path
    }

    static func replace(_ path: String, with bytes: [UInt8]) throws {
        do throws(FileError) {
            try WholeFile.replace(path, with: bytes, mode: 0o644)
        } catch {
            throw CLIError(
                "Cannot write the feed to \(Terminal.safe(path)) (\(error.operation.rawValue): \(error.reason)); the old feed, if any, is unchanged.",
                exit: .forFile(errno: error.errno))
        }
    }
}
