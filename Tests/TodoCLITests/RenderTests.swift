import Testing
import TodoCore

@testable import TodoCLI

/// `list`'s table, made a line at a time: in a pipe (no header, nothing cut) the titles and
/// tags are made as each line is; under a header or in a terminal's width they are measured
/// first. Both give the lines `list` has always printed.
@Suite(.timeLimit(.minutes(2))) struct RenderTests {
    static let today = CivilDate(year: 2026, month: 11, day: 25)!
    static let stamp = FieldStamp(Stamp(wall: Stamp.minWall, counter: 0, replica: "a1"), by: "Ann")

    static func tasks() -> [Task] {
        func task(_ high: UInt64, _ title: String, change: (inout Task) -> Void = { _ in }) -> Task {
            var t = Task(id: TaskID(high: high, low: 1), title: title, createdAt: "2026-11-20T09:00:00.000Z", createdBy: "Ann")
            change(&t)
            return t
        }
        return [
            task(0x3f2a_0000_0000_0000, "Buy milk") {
                $0.due = Due(date: today.adding(days: -1))
                $0.priority = .high
                $0.setTag("shop", present: true, stamp: stamp)
                $0.setTag("home", present: true, stamp: stamp)
            },
            task(0x91bc_0000_0000_0000, "Café crème") {
                $0.status = .done
                $0.assignee = "Kim"
            },
            task(0xa1b2_c000_0000_0000, "洗濯物") {
                $0.due = Due(date: CivilDate(year: 2026, month: 12, day: 25)!)
                $0.priority = .low
                $0.setTag("école", present: true, stamp: stamp)
                $0.setTag("old", present: false, stamp: stamp)
            },
            task(0xd00d_0000_0000_0000, "Old plan") { $0.deleted = true },
            task(0xe0e0_0000_0000_0000, "Line\nbreak"),
        ]
    }

    @Test func aPipedTableIsTheLinesListHasAlwaysPrinted() {
        let tasks = Self.tasks()
        let render = Render(today: Self.today, minuteOfDay: 720)
        let lengths = [4, 4, 5, 4, 4]
        func spaces(_ n: Int) -> String { String(repeating: " ", count: n) }
        // Columns: id (5 wide), due (11: "yesterday !"), who (3), title, tags; two spaces apart.
        let expected = [
            "3f2a" + spaces(3) + "yesterday !" + spaces(7) + "Buy milk (high)  +home +shop",
            "91bc" + spaces(16) + "Kim  [done] Café crème",
            "a1b2c  2026-12-25" + spaces(8) + "洗濯物 (low)  +école",
            "d00d" + spaces(21) + "[deleted] Old plan",
            "e0e0" + spaces(21) + "Line\\nbreak",
        ]
        let lines = render.table(tasks, order: Array(tasks.indices), shortLengths: lengths, header: false)
        #expect(lines == expected)
        var emitted: [String] = []
        render.table(tasks, order: [4, 0], shortLengths: lengths, header: false) { emitted.append($0) }
        // Widths are these rows' own: nobody assigned, so no WHO column.
        #expect(emitted == ["e0e0" + spaces(15) + "Line\\nbreak", "3f2a  yesterday !  Buy milk (high)  +home +shop"])
    }

    @Test func aTableUnderAHeaderInAWidthFitsItAndShowsTheSameRows() {
        let tasks = Self.tasks()
        let render = Render(today: Self.today, minuteOfDay: 720)
        let lengths = [4, 4, 5, 4, 4]
        for width in [200, 60, 40, 20] {
            let lines = render.table(tasks, order: Array(tasks.indices), shortLengths: lengths, header: true, width: width)
            #expect(lines.count == tasks.count + 1)
            #expect(lines[0].hasPrefix("ID"))
            #expect(lines.allSatisfy { Terminal.width($0) <= width }, "\(width) columns")
            if width == 200 {
                // Wide enough: every title and tag list whole, the tags lined up under TAGS.
                let tagsAt = lines[0].utf8.count - "TAGS".utf8.count
                #expect(lines[0].hasSuffix("TAGS"))
                #expect(lines[1].hasSuffix("Buy milk (high)" + String(repeating: " ", count: Terminal.width("[deleted] Old plan") - Terminal.width("Buy milk (high)") + 2) + "+home +shop"))
                #expect(Terminal.width(String(lines[1].prefix { $0 != "+" })) == tagsAt)
                #expect(lines[3].hasSuffix("洗濯物 (low)" + String(repeating: " ", count: Terminal.width("[deleted] Old plan") - Terminal.width("洗濯物 (low)") + 2) + "+école"))
            }
        }
    }
}
