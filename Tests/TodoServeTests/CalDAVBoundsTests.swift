import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Synchronization
import Testing
import TodoCore
import TodoStore

@testable import TodoServe

/// What one CalDAV request may cost the server (docs/CALDAV.md, "Limits"): properties named
/// once and at most 64 of them, an answer's size bounded before it is written and streamed,
/// sync tokens only for days and commits this server could have given, filters checked.
@Suite(.timeLimit(.minutes(5)))
struct CalDAVBoundsTests {
    static let propfind = HTTPRequest.Method("PROPFIND")!
    static let report = HTTPRequest.Method("REPORT")!

    /// A household with Ann and Ben, `tasks` more tasks for nobody (each with a note of
    /// `notes` characters, so in Household), imported in one commit, and an app password of Ann's.
    final class DAV: @unchecked Sendable {
        let f: ServeFixture
        let auth: String

        init(tasks: Int = 20, notes: Int = 0, configure: (inout ServeConfig) -> Void = { _ in }) throws {
            f = try ServeFixture(configure: configure)
            _ = try f.addChore("Dishes", rotation: ["Ann", "Ben"])
            let note = String(repeating: "n", count: notes)
            let list = (0..<tasks).map { n in
                "{\"title\": \"Task \(n) & <more>\"" + (notes > 0 ? ", \"notes\": \"\(note)\"" : "") + "}"
            }
            _ = try f.household().importTasks(Array(("[" + list.joined(separator: ",") + "]").utf8), file: "tasks.json")
            let ann = try f.site.tokens.appPassword(member: "Ann", label: "phone", now: f.site.now())
            auth = "Basic " + Data("\(ann.user):\(ann.password)".utf8).base64EncodedString()
        }

        var home: String { "/dav/" + DAVKey.of("Ann") + "/" }
        var mine: String { home + "mine/" }
        var household: String { home + "household/" }

        func h(depth: String = "1") -> HTTPFields {
            [.authorization: auth, HTTPField.Name("Depth")!: depth, .contentType: "application/xml; charset=utf-8"]
        }
    }

    static func propfindBody(_ props: String) -> ByteBuffer {
        ByteBuffer(
            string: #"<?xml version="1.0"?><d:propfind xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop>"# + props
                + "</d:prop></d:propfind>")
    }

    static func query(_ props: String, filter: String = #"<c:comp-filter name="VCALENDAR"><c:comp-filter name="VTODO"/></c:comp-filter>"#)
        -> ByteBuffer
    {
        ByteBuffer(
            string: #"<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop>"# + props
                + "</d:prop><c:filter>" + filter + "</c:filter></c:calendar-query>")
    }

    static func sync(_ token: String, props: String = "<d:getetag/>") -> ByteBuffer {
        ByteBuffer(
            string: #"<d:sync-collection xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:sync-token>"# + token
                + "</d:sync-token><d:sync-level>1</d:sync-level><d:prop>" + props + "</d:prop></d:sync-collection>")
    }

    static func count(_ needle: String, in text: String) -> Int { text.components(separatedBy: needle).count - 1 }

    // MARK: Properties named once, at most 64

    @Test func aThousandGetetagsAnswerAsOne() async throws {
        let d = try DAV()
        try await d.f.application().test(.router) { client in
            let once = try await client.execute(uri: d.household, method: Self.propfind, headers: d.h(), body: Self.propfindBody("<d:getetag/>"))
            #expect(once.status.code == 207)
            let items = Self.count("<d:response>", in: once.text) - 1
            #expect(items >= 20)
            let body = Self.propfindBody(String(repeating: "<d:getetag/>", count: 1_000))
            #expect(body.readableBytes > 12_000)
            let many = try await client.execute(uri: d.household, method: Self.propfind, headers: d.h(), body: body)
            #expect(many.status.code == 207)
            // Each item's ETag once: the same answer as naming it once.
            #expect(Self.count("<d:getetag>", in: many.text) == items)
            #expect(many.text == once.text)
        }
    }

    @Test func fiveThousandCalendarDatasAnswerAsOne() async throws {
        let d = try DAV()
        try await d.f.application().test(.router) { client in
            let once = try await client.execute(uri: d.household, method: Self.report, headers: d.h(), body: Self.query("<c:calendar-data/>"))
            #expect(once.status.code == 207)
            let items = Self.count("<d:response>", in: once.text)
            #expect(items >= 20)
            let many = try await client.execute(
                uri: d.household, method: Self.report, headers: d.h(), body: Self.query(String(repeating: "<c:calendar-data/>", count: 5_000)))
            #expect(many.status.code == 207)
            #expect(Self.count("<c:calendar-data>", in: many.text) == items)
            #expect(many.text == once.text)
        }
    }

    @Test func sixtyFiveDifferentPropertiesAreRefused() async throws {
        let d = try DAV(tasks: 2)
        let props = (0..<65).map { "<x:p\($0) xmlns:x=\"urn:example\"/>" }
        try await d.f.application().test(.router) { client in
            let most = try await client.execute(
                uri: d.household, method: Self.propfind, headers: d.h(), body: Self.propfindBody(props.prefix(64).joined()))
            #expect(most.status.code == 207)
            let bodies = [(Self.propfind, Self.propfindBody(props.joined())), (Self.report, Self.query(props.joined())), (Self.report, Self.sync("", props: props.joined()))]
            for (method, body) in bodies {
                let r = try await client.execute(uri: d.household, method: method, headers: d.h(), body: body)
                #expect(r.status == .forbidden)
                #expect(r.text.contains("more than 64 different properties"))
            }
            // Repeats count once: 64 different names, each twice, is 64.
            let twice = try await client.execute(
                uri: d.household, method: Self.propfind, headers: d.h(),
                body: Self.propfindBody((props.prefix(64) + props.prefix(64)).joined()))
            #expect(twice.status.code == 207)
        }
    }

    // MARK: An answer's size

    @Test func anAnswerOverTheBoundIsRefusedBeforeItsFirstByte() async throws {
        // 40 tasks with notes of 1,500 characters: about 64 KB of calendar data, against a
        // bound lowered to 48 KiB for the test (32 MiB in use).
        let d = try DAV(tasks: 40, notes: 1_500) { $0.caldavAnswerBytes = 48 << 10 }
        try await d.f.application().test(.router) { client in
            let etags = try await client.execute(uri: d.household, method: Self.propfind, headers: d.h(), body: Self.propfindBody("<d:getetag/>"))
            #expect(etags.status.code == 207)
            let data = try await client.execute(
                uri: d.household, method: Self.report, headers: d.h(), body: Self.query("<d:getetag/><c:calendar-data/>"))
            #expect(data.status.code == 507)
            #expect(data.text.contains("number-of-matches-within-limits"))
            #expect(!data.text.contains("BEGIN:VTODO"))
            // The same through a sync from the start, and a multiget naming one item many times.
            let sync = try await client.execute(
                uri: d.household, method: Self.report, headers: d.h(),
                body: Self.sync("", props: "<d:getetag/><c:calendar-data/>"))
            #expect(sync.status.code == 507)
            let href = try #require(CalDAVRouteTests.hrefs(etags.text).last)
            let multiget = try await client.execute(
                uri: d.household, method: Self.report, headers: d.h(),
                body: ByteBuffer(
                    string: #"<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><c:calendar-data/></d:prop>"#
                        + String(repeating: "<d:href>\(href)</d:href>", count: 200) + "</c:calendar-multiget>"))
            #expect(multiget.status.code == 507)
        }
    }

    /// The bound is never below what is written (so an answer never outgrows it), and not so far
    /// above that a real client's answer is refused: at most twice it for calendar data.
    @Test func theBoundIsAboveTheAnswerAndNearIt() async throws {
        let d = try DAV(tasks: 30, notes: 300)
        let r = DAVRequest(
            site: d.f.site, member: "Ann", path: .collection(DAVKey.of("Ann"), .household), method: Self.report, depth: "1", body: [],
            ifMatch: nil, ifNoneMatch: nil, contentType: nil, requested: d.household, turn: nil)
        let reader = try d.f.site.openForReading()
        let state = try d.f.site.davState(reader)
        let props = DAVProps(r: r, state: state)
        let items = state.items(.household, member: "Ann")
        #expect(items.count >= 30)
        let requests: [DAVPropRequest] = [
            .all, .names, .props([(DAVNamespace.dav, "getetag")]),
            .props([(DAVNamespace.caldav, "calendar-data"), (DAVNamespace.dav, "getlastmodified"), (DAVNamespace.dav, "current-user-privilege-set")]),
            .props((0..<64).map { ("urn:x&\"<\($0)", "name\($0)") }),
        ]
        for wanted in requests {
            var targets: [(String, DAVProps.Resource)] = [(r.home, .home), (r.href(.household), .collection(.household))]
            targets += items.map { (r.href(.household, $0), .item(.household, $0)) }
            let written = DAVWriter.multistatus(targets.map { props.entry($0.0, $0.1, wanted) }, syncToken: state.token).count
            let bound = DAVWriter.multistatusBound(syncToken: state.token) + targets.reduce(0) { $0 + props.bound($1.0, $1.1, wanted) }
            #expect(bound >= written, "\(wanted)")
            if case .props(let list) = wanted, list.first?.1 == "calendar-data" { #expect(bound <= 2 * written) }
        }
    }

    @Test func anAnswerIsWrittenInPieces() async throws {
        let d = try DAV(tasks: 60, notes: 2_000)
        let r = DAVRequest(
            site: d.f.site, member: "Ann", path: .collection(DAVKey.of("Ann"), .household), method: Self.report, depth: "1", body: [],
            ifMatch: nil, ifNoneMatch: nil, contentType: nil, requested: d.household, turn: nil)
        let state = try d.f.site.davState(try d.f.site.openForReading())
        let targets: [DAVTarget] = state.items(.household, member: "Ann").map { .resource(r.href(.household, $0), .item(.household, $0)) }
        let response = try DAVRoutes.multistatus(
            DAVProps(r: r, state: state), .props([(DAVNamespace.caldav, "calendar-data")]), targets)
        #expect(response.body.contentLength == nil)
        let writer = CollectingWriter()
        try await response.body.write(writer)
        let pieces = writer.pieces.withLock { $0 }
        #expect(pieces.count >= 2)
        #expect(pieces.allSatisfy { $0 <= DAVRoutes.chunkBytes + 8_192 })
        #expect(pieces.reduce(0, +) > 120_000)
    }

    // MARK: Sync tokens

    @Test func aTokenForADayNoAnswerWasMadeForIsRefused() async throws {
        let d = try DAV(tasks: 2)
        _ = try d.f.addChore("Bins", rotation: ["Ann", "Ben"])
        _ = try d.f.addChore("Plants", rotation: ["Ben", "Ann"])
        let commit = try d.f.git(["rev-parse", "main"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let today = try d.f.site.davState(try d.f.site.openForReading()).today
        // A commit main does not reach: main's tree again, beside it.
        let tree = try d.f.git(["rev-parse", "main^{tree}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let aside = try d.f.git(["commit-tree", tree, "-p", "main", "-m", "aside"]).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(aside.utf8.count == 40)
        let refusedTokens = [
            "http://todo.invalid/sync/\(commit)/99991231", DAVToken.make(commit: commit, day: today.adding(days: 2)),
            DAVToken.make(commit: commit, day: today.adding(days: -1)), DAVToken.make(commit: commit, day: CivilDate(daysSinceEpoch: 1)),
            DAVToken.make(commit: aside, day: today),
        ]
        let acceptedTokens = [DAVToken.make(commit: commit, day: today), DAVToken.make(commit: commit, day: today.adding(days: 1))]
        try await d.f.application().test(.router) { client in
            func sync(_ token: String) async throws -> TestResponse {
                try await client.execute(uri: d.mine, method: Self.report, headers: d.h(), body: Self.sync(token))
            }
            for refused in refusedTokens {
                let r = try await sync(refused)
                #expect(r.status == .forbidden, "\(refused)")
                #expect(r.text.contains("valid-sync-token"), "\(refused)")
            }
            for accepted in acceptedTokens {
                let r = try await sync(accepted)
                #expect(r.status.code == 207, "\(accepted)")
            }
        }
    }

    // MARK: getlastmodified, collations, time ranges

    @Test func everyItemHasItsLastChange() async throws {
        let d = try DAV(tasks: 3)
        var edit = TaskEdit()
        edit.title = "Renamed"
        _ = try d.f.household().edit(try d.f.taskID(titled: "Ben's first chore"), edit)
        let tasks = try d.f.household().snapshot().loadAll().tasks
        try await d.f.application().test(.router) { client in
            let r = try await client.execute(
                uri: d.household, method: Self.propfind, headers: d.h(), body: Self.propfindBody("<d:getetag/><d:getlastmodified/>"))
            #expect(r.status.code == 207)
            let items = Self.count("<d:getetag>", in: r.text)
            #expect(items >= 3)
            #expect(Self.count("<d:getlastmodified>", in: r.text) == items)
            // Only the collection has none.
            #expect(Self.count("<d:getlastmodified/>", in: r.text) == 1)
            // A task imported without stamps changed last when it was made; one with stamps, at its latest.
            let imported = try #require(tasks.first { $0.title == "Task 0 & <more>" })
            #expect(imported.maxStamp == nil)
            let made = try #require(ISO8601DateFormatter().date(from: imported.createdAt.replacingOccurrences(of: #"\.\d+Z$"#, with: "Z", options: .regularExpression)))
            let chore = try #require(tasks.first { $0.title == "Renamed" })
            let wall = try #require(chore.maxStamp?.wall)
            let date = Date(timeIntervalSince1970: Double(wall / 1000))
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            #expect(r.text.contains("<d:getlastmodified>\(formatter.string(from: date))</d:getlastmodified>"))
            #expect(r.text.contains("<d:getlastmodified>\(formatter.string(from: made))</d:getlastmodified>"))
            let all = try await client.execute(uri: d.household, method: Self.propfind, headers: d.h(), body: ByteBuffer(string: #"<d:propfind xmlns:d="DAV:"><d:allprop/></d:propfind>"#))
            #expect(Self.count("<d:getlastmodified>", in: all.text) == items)
            let names = try await client.execute(uri: d.household, method: Self.propfind, headers: d.h(), body: ByteBuffer(string: #"<d:propfind xmlns:d="DAV:"><d:propname/></d:propfind>"#))
            #expect(Self.count("<d:getlastmodified/>", in: names.text) == items)
        }
        #expect(DAVProps.httpDate(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(DAVProps.httpDate(1_795_901_372_000) == "Sat, 28 Nov 2026 21:29:32 GMT")
        #expect(DAVProps.httpDate(.max).utf8.count == 29)
        #expect(DAVProps.httpDate(.min).utf8.count == 29)
    }

    @Test func anUnknownCollationIsRefused() async throws {
        let d = try DAV(tasks: 2)
        try await d.f.application().test(.router) { client in
            func query(_ collation: String) async throws -> TestResponse {
                try await client.execute(
                    uri: d.household, method: Self.report, headers: d.h(),
                    body: Self.query(
                        "<d:getetag/>",
                        filter: #"<c:comp-filter name="VCALENDAR"><c:comp-filter name="VTODO"><c:prop-filter name="SUMMARY"><c:text-match collation=""#
                            + collation + #"">task</c:text-match></c:prop-filter></c:comp-filter></c:comp-filter>"#))
            }
            for known in ["i;ascii-casemap", "i;octet"] { #expect(try await query(known).status.code == 207) }
            let r = try await query("i;unicode-casemap-by-the-moon")
            #expect(r.status == .forbidden)
            #expect(r.text.contains("supported-collation"))
        }
    }

    @Test func aTimeRangeNotInUTCOrEndingFirstIsRefused() async throws {
        let d = try DAV(tasks: 2)
        try await d.f.application().test(.router) { client in
            func query(_ range: String) async throws -> TestResponse {
                try await client.execute(
                    uri: d.household, method: Self.report, headers: d.h(),
                    body: Self.query(
                        "<d:getetag/>",
                        filter: #"<c:comp-filter name="VCALENDAR"><c:comp-filter name="VTODO"><c:time-range "# + range
                            + "/></c:comp-filter></c:comp-filter>"))
            }
            for valid in [#"start="20261101T000000Z" end="20261201T000000Z""#, #"start="20261101T000000Z""#, #"end="20261201T000000Z""#] {
                #expect(try await query(valid).status.code == 207, "\(valid)")
            }
            for invalid in [
                #"start="20261101T000000" end="20261201T000000Z""#, #"start="20261101" end="20261201T000000Z""#,
                #"start="tomorrow""#, #"start="20261201T000000Z" end="20261201T000000Z""#,
                #"start="20261201T000000Z" end="20261101T000000Z""#,
            ] {
                let r = try await query(invalid)
                #expect(r.status == .forbidden, "\(invalid)")
                #expect(r.text.contains("valid-filter"), "\(invalid)")
            }
        }
    }
}

/// A response body writer that keeps the size of each piece written.
final class CollectingWriter: ResponseBodyWriter, @unchecked Sendable {
    let pieces = Mutex<[Int]>([])

    func write(_ buffer: ByteBuffer) async throws { pieces.withLock { $0.append(buffer.readableBytes) } }
    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

/// One client's CalDAV requests take turns; another client's never wait for them.
@Suite(.timeLimit(.minutes(1)))
struct DAVTurnsTests {
    @Test func aClientsSecondRequestWaitsForItsFirstAndNoOneElseDoes() async throws {
        let turns = DAVTurns()
        let events = Mutex<[String]>([])
        await turns.enter("phone")
        let second = _Concurrency.Task {
            await turns.enter("phone")
            events.withLock { $0.append("second") }
            turns.leave("phone")
        }
        // Another client goes at once, while the phone's second request waits.
        await turns.enter("laptop")
        turns.leave("laptop")
        for _ in 0..<100 { await _Concurrency.Task.yield() }
        events.withLock { $0.append("first done") }
        turns.leave("phone")
        await second.value
        #expect(events.withLock { $0 } == ["first done", "second"])
        // Nothing is left held: the phone goes at once again.
        await turns.enter("phone")
        turns.leave("phone")
    }
}
