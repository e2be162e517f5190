import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
import TodoCore
import TodoStore

@testable import TodoServe

/// Broken and hostile bodies on every CalDAV method: never a crash, never a 5xx, and nothing
/// committed for a body that is not a valid change (docs/CALDAV.md, "Limits").
@Suite(.timeLimit(.minutes(5)))
struct CalDAVHostileTests {
    static let propfind = HTTPRequest.Method("PROPFIND")!
    static let report = HTTPRequest.Method("REPORT")!

    static let seeds: [String] = [
        #"<?xml version="1.0"?><d:propfind xmlns:d="DAV:"><d:prop><d:getetag/><d:displayname/></d:prop></d:propfind>"#,
        #"<c:calendar-query xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><d:getetag/></d:prop><c:filter><c:comp-filter name="VCALENDAR"><c:comp-filter name="VTODO"><c:time-range start="20261101T000000Z" end="20261201T000000Z"/><c:prop-filter name="STATUS"><c:text-match negate-condition="yes">COMPLETED</c:text-match></c:prop-filter></c:comp-filter></c:comp-filter></c:filter></c:calendar-query>"#,
        #"<d:sync-collection xmlns:d="DAV:"><d:sync-token>http://todo.invalid/sync/0/20261126</d:sync-token><d:sync-level>1</d:sync-level><d:limit><d:nresults>5</d:nresults></d:limit><d:prop><d:getetag/></d:prop></d:sync-collection>"#,
        #"<c:calendar-multiget xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav"><d:prop><c:calendar-data/></d:prop><d:href>/dav/x/mine/a.ics</d:href><d:href>../../../etc/passwd</d:href></c:calendar-multiget>"#,
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nBEGIN:VTODO\r\nUID:h-1\r\nSUMMARY:Hostile\r\nDUE;TZID=Europe/Paris:20261130T180000\r\nPRIORITY:1\r\nCATEGORIES:a,b\r\nRRULE:FREQ=WEEKLY;BYDAY=MO\r\nBEGIN:VALARM\r\nTRIGGER:-PT15M\r\nACTION:DISPLAY\r\nEND:VALARM\r\nEND:VTODO\r\nEND:VCALENDAR\r\n",
    ]

    /// `seed` with a few bytes changed, removed, repeated or inserted.
    static func mutate(_ seed: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        var b = seed
        let edits = Int.random(in: 1...6, using: &rng)
        let specials: [UInt8] = Array("<>&\"';:,\\\r\n\u{0}\u{7f}%/=".utf8) + [0xC3, 0xFF, 0x80]
        for _ in 0..<edits where !b.isEmpty {
            let i = Int.random(in: 0..<b.count, using: &rng)
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: b[i] = specials.randomElement(using: &rng) ?? 0
            case 1: b.remove(at: i)
            case 2: b.insert(contentsOf: b[i..<min(b.count, i + Int.random(in: 1...40, using: &rng))], at: i)
            case 3: b.insert(UInt8.random(in: 0...255, using: &rng), at: i)
            default: b.removeSubrange(i..<min(b.count, i + Int.random(in: 1...20, using: &rng)))
            }
        }
        return b
    }

    @Test func mangledBodiesNeverCrashOrCommitNonsense() async throws {
        let f = try ServeFixture()
        let chore = try f.addChore("Dishes", rotation: ["Ann", "Ben"])
        _ = chore
        let ann = try f.site.tokens.appPassword(member: "Ann", label: "phone", now: f.site.now())
        let auth = "Basic " + Data("\(ann.user):\(ann.password)".utf8).base64EncodedString()
        let mine = "/dav/" + DAVKey.of("Ann") + "/mine/"
        var rng = SplitMix64(seed: 29)
        let bodies = (0..<300).map { Self.mutate(Array(Self.seeds[$0 % Self.seeds.count].utf8), &rng) }
        let taskCount = try f.household().snapshot().loadAll().tasks.count
        try await f.application().test(.router) { client in
            for round in 0..<300 {
                let seedIndex = round % Self.seeds.count
                let body = bodies[round]
                let method: HTTPRequest.Method = seedIndex == 0 ? Self.propfind : seedIndex == 4 ? .put : Self.report
                let uri = method == .put ? mine + "h-\(round).ics" : mine
                var headers: HTTPFields = [.authorization: auth, HTTPField.Name("Depth")!: "1"]
                if method == .put { headers[.contentType] = "text/calendar" }
                let r = try await client.execute(uri: uri, method: method, headers: headers, body: ByteBuffer(bytes: body))
                #expect(r.status.code < 500, "round \(round): \(r.status) for \(String(decoding: body, as: UTF8.self).prefix(200))")
            }
        }
        // Whatever was accepted is a whole task with a title; nothing half-written.
        let tasks = try f.household().snapshot().loadAll()
        #expect(tasks.bad.isEmpty)
        #expect(tasks.tasks.count >= taskCount)
        #expect(tasks.tasks.allSatisfy { !$0.title.isEmpty })
        #expect(try f.git(["fsck", "--strict", "--no-progress"]).isEmpty)
    }
}
