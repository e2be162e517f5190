import Foundation
import Testing

@testable import TodoServe

/// The CalDAV XML layer: request bodies as clients send them, hostile bodies refused before or
/// by libxml2, and answers that read back as what was written.
@Suite(.kit, .timeLimit(.minutes(2)))
struct DAVXMLTests {
    let dav = DAVNamespace.dav
    let caldav = DAVNamespace.caldav

    func parse(_ text: String) throws -> DAVElement { try DAVXML.parse(Array(text.utf8)) }

    func refusal(_ bytes: [UInt8]) -> DAVXMLError? {
        do {
            _ = try DAVXML.parse(bytes)
            return nil
        } catch {
            return error
        }
    }

    func refusal(_ text: String) -> DAVXMLError? { refusal(Array(text.utf8)) }

    // MARK: Requests as clients send them

    /// DAVx5's shape: DAV: as the default namespace, other namespaces under prefixes of its own.
    @Test func aPropfindWithADefaultNamespaceAndItsOwnPrefixes() throws {
        let body = """
            <?xml version='1.0' encoding='UTF-8' ?><propfind xmlns="DAV:" xmlns:CAL="urn:ietf:params:xml:ns:caldav" \
            xmlns:CS="http://calendarserver.org/ns/" xmlns:x2="http://apple.com/ns/ical/"><prop><current-user-principal />\
            <CAL:calendar-home-set /><x2:calendar-color /><CS:getctag /><resourcetype /><displayname /></prop></propfind>
            """
        let root = try parse(body)
        #expect(root.is(dav, "propfind"))
        let prop = try #require(root.child(dav, "prop"))
        #expect(prop.children.map { "\($0.namespace) \($0.name)" } == [
            "DAV: current-user-principal", "urn:ietf:params:xml:ns:caldav calendar-home-set", "http://apple.com/ns/ical/ calendar-color",
            "http://calendarserver.org/ns/ getctag", "DAV: resourcetype", "DAV: displayname",
        ])
        #expect(prop.children.allSatisfy { $0.text.isEmpty && $0.children.isEmpty && $0.attributes.isEmpty })
    }

    /// Apple's shape (prefix A for DAV:, laid out over lines) and python-caldav's (ElementTree's
    /// ns0, ns1, a namespace declared on the element that uses it) read the same.
    @Test func applesAndPythonCaldavsPropfindsReadTheSame() throws {
        let apple = """
            <?xml version="1.0" encoding="UTF-8"?>
            <A:propfind xmlns:A="DAV:">
              <A:prop>
                <A:current-user-principal/>
                <B:calendar-home-set xmlns:B="urn:ietf:params:xml:ns:caldav"/>
              </A:prop>
            </A:propfind>
            """
        let python = """
            <?xml version='1.0' encoding='utf-8'?>
            <ns0:propfind xmlns:ns0="DAV:"><ns0:prop><ns0:current-user-principal /><ns1:calendar-home-set \
            xmlns:ns1="urn:ietf:params:xml:ns:caldav" /></ns0:prop></ns0:propfind>
            """
        let a = try parse(apple)
        let p = try parse(python)
        #expect(a == p)
        #expect(a.text == "")
        #expect(a.child(dav, "prop")?.children(caldav, "calendar-home-set").count == 1)
        #expect(a.child(caldav, "prop") == nil)
    }

    /// A calendar-query's filter: attributes in no namespace, nested comp-filters, a text-match
    /// whose text keeps its spaces and has its entity resolved, a comment left out.
    @Test func aCalendarQueryWithFilters() throws {
        let body = """
            <?xml version="1.0" encoding="utf-8" ?>
            <C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
              <D:prop>
                <D:getetag/>
                <C:calendar-data/>
              </D:prop>
              <!-- open tasks about milk -->
              <C:filter>
                <C:comp-filter name="VCALENDAR">
                  <C:comp-filter name="VTODO">
                    <C:prop-filter name="COMPLETED">
                      <C:is-not-defined/>
                    </C:prop-filter>
                    <C:prop-filter name="SUMMARY">
                      <C:text-match collation="i;ascii-casemap" negate-condition="no">  milk &amp; eggs&#x20;</C:text-match>
                    </C:prop-filter>
                  </C:comp-filter>
                </C:comp-filter>
              </C:filter>
            </C:calendar-query>
            """
        let root = try parse(body)
        #expect(root.is(caldav, "calendar-query"))
        #expect(root.children.count == 2)
        #expect(root.child(dav, "prop")?.children.map(\.name) == ["getetag", "calendar-data"])
        let calendar = try #require(root.child(caldav, "filter")?.child(caldav, "comp-filter"))
        #expect(calendar.attribute("name") == "VCALENDAR")
        let todo = try #require(calendar.child(caldav, "comp-filter"))
        #expect(todo.attribute("name") == "VTODO")
        let filters = todo.children(caldav, "prop-filter")
        #expect(filters.map { $0.attribute("name") } == ["COMPLETED", "SUMMARY"])
        #expect(filters[0].child(caldav, "is-not-defined") != nil)
        let match = try #require(filters[1].child(caldav, "text-match"))
        #expect(match.text == "  milk & eggs ")
        #expect(match.attribute("collation") == "i;ascii-casemap")
        #expect(match.attribute("negate-condition") == "no")
        #expect(match.attribute("collation", namespace: caldav) == nil)
        #expect(match.attributes == [
            DAVAttribute(namespace: "", name: "collation", value: "i;ascii-casemap"), DAVAttribute(namespace: "", name: "negate-condition", value: "no"),
        ])
    }

    /// RFC 6578's sync-collection with a limit, a first sync's empty token, and CDATA as text.
    @Test func aSyncCollectionWithALimit() throws {
        let token = "http://todo.invalid/sync/\(String(repeating: "ab", count: 20))/20261126"
        let root = try parse("""
            <?xml version="1.0" encoding="utf-8" ?>
            <d:sync-collection xmlns:d="DAV:">
              <d:sync-token><![CDATA[\(token)]]></d:sync-token>
              <d:sync-level>1</d:sync-level>
              <d:limit><d:nresults>100</d:nresults></d:limit>
              <d:prop><d:getetag/></d:prop>
            </d:sync-collection>
            """)
        #expect(root.is(dav, "sync-collection"))
        #expect(root.child(dav, "sync-token")?.text == token)
        #expect(root.child(dav, "sync-level")?.text == "1")
        #expect(root.child(dav, "limit")?.child(dav, "nresults")?.text == "100")
        #expect(root.child(dav, "prop")?.child(dav, "getetag") != nil)
        let first = try parse(#"<sync-collection xmlns="DAV:"><sync-token/><sync-level>1</sync-level><prop/></sync-collection>"#)
        #expect(first.child(dav, "sync-token")?.text == "")
    }

    /// The bytes are UTF-8 whatever the declaration says.
    @Test func theDeclaredEncodingIsIgnored() throws {
        let root = try parse(#"<?xml version="1.0" encoding="ISO-8859-1"?><d:displayname xmlns:d="DAV:">Épicerie ✓</d:displayname>"#)
        #expect(root.text == "Épicerie ✓")
        let bom = try DAVXML.parse([0xEF, 0xBB, 0xBF] + Array(#"<a xmlns="DAV:">x</a>"#.utf8))
        #expect(bom == DAVElement(namespace: dav, name: "a", attributes: [], children: [], text: "x"))
    }

    // MARK: Hostile bodies

    /// An external entity naming /etc/passwd is refused before libxml2 reads the body, in any
    /// case; and the parse alone, were the check gone, loads nothing either.
    @Test func anExternalEntityIsRefusedAndNeverRead() throws {
        let xxe = """
            <?xml version="1.0"?>
            <!DOCTYPE d:propfind [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
            <d:propfind xmlns:d="DAV:"><d:prop><d:displayname>&xxe;</d:displayname></d:prop></d:propfind>
            """
        #expect(refusal(xxe) == .doctypeRefused)
        #expect(refusal(xxe.replacingOccurrences(of: "DOCTYPE", with: "doctype")) == .doctypeRefused)
        #expect(refusal(xxe.replacingOccurrences(of: "DOCTYPE", with: "DocType")) == .doctypeRefused)
        #expect(refusal(#"<a xmlns="DAV:"><!ENTITY x "y"></a>"#) == .doctypeRefused)
        // Below the check: libxml2 with this parser's options.
        let passwd = "root:"
        do {
            let tree = try DAVXML.tree(Array(xxe.utf8))
            #expect(!"\(tree)".contains(passwd))
            #expect(tree.child(dav, "prop")?.child(dav, "displayname")?.text == "")
        } catch {
            #expect(!error.reason.contains(passwd))
        }
        let parameter = """
            <?xml version="1.0"?>
            <!DOCTYPE a [<!ENTITY % p SYSTEM "file:///etc/passwd"> %p;]><a>x</a>
            """
        do {
            let tree = try DAVXML.tree(Array(parameter.utf8))
            #expect(!"\(tree)".contains(passwd))
        } catch {
            #expect(!error.reason.contains(passwd))
        }
    }

    @Test func billionLaughsIsRefused() throws {
        var body = #"<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol">"#
        for i in 1...9 {
            let previous = i == 1 ? "lol" : "lol\(i - 1)"
            body += "<!ENTITY lol\(i) \"" + String(repeating: "&\(previous);", count: 10) + "\">"
        }
        body += "]><lolz>&lol9;</lolz>"
        #expect(refusal(body) == .doctypeRefused)
    }

    @Test func nestingIsBoundedAt64() throws {
        func nested(_ depth: Int) -> String {
            String(repeating: #"<a xmlns="DAV:">"#, count: depth) + "x" + String(repeating: "</a>", count: depth)
        }
        var deepest = try parse(nested(64))
        for _ in 1..<64 { deepest = try #require(deepest.child(dav, "a")) }
        #expect(deepest.text == "x")
        #expect(refusal(nested(65)) == .tooDeep)
        // Past libxml2's own limit (256) too, refused whichever check comes first.
        #expect(refusal(nested(10_000)) != nil)
    }

    @Test func sizeAndElementCountAreBounded() throws {
        let open = Array(#"<a xmlns="DAV:">"#.utf8)
        let close = Array("</a>".utf8)
        let padding = DAVXML.maximumBytes - open.count - close.count
        let full = try DAVXML.parse(open + Array(repeating: UInt8(ascii: "x"), count: padding) + close)
        #expect(full.text.utf8.count == padding)
        #expect(refusal(open + Array(repeating: UInt8(ascii: "x"), count: padding + 1) + close) == .tooLarge)
        #expect(refusal([]) == .empty)

        func many(_ n: Int) -> String { "<r>" + String(repeating: "<a/>", count: n) + "</r>" }
        #expect(try parse(many(DAVXML.maximumElements - 1)).children.count == DAVXML.maximumElements - 1)
        #expect(refusal(many(DAVXML.maximumElements)) == .tooManyElements)
        // The count of the tree itself, below the count of the bytes.
        #expect(throws: DAVXMLError.tooManyElements) { try DAVXML.tree(Array(many(DAVXML.maximumElements).utf8)) }
        // `<` in text that are no tags count for the bytes' bound, never for less than the elements.
        #expect(DAVXML.startTags(Array("<a><![CDATA[<<]]><?p?><!-- <x --></a>".utf8)) == 4)
    }

    @Test func bytesThatAreNotUTF8AreRefused() throws {
        for bad in [[0xFF], [0xC0, 0xAF], [0xED, 0xA0, 0x80], [0xE2, 0x82]] as [[UInt8]] {
            #expect(refusal(Array("<a>".utf8) + bad + Array("</a>".utf8)) == .notUTF8, "\(bad)")
        }
        // UTF-16 with its byte order mark.
        #expect(refusal([0xFF, 0xFE] + Array("<a/>".utf8).flatMap { [$0, 0] }) == .notUTF8)
    }

    @Test func bodiesThatAreNotWellFormedAreRefusedWithLibxml2sReason() throws {
        for body in [
            "<a><b></a>", "<a>", "just text", "<a/><b/>", "<x:a/>", "<a>&undefined;</a>", "<a>&#0;</a>", "<a b='1' b='2'/>", "<a>\u{1}</a>",
            "<a xmlns:x=''><x:b/></a>",
        ] {
            guard case .notWellFormed(let why) = refusal(body) else {
                Issue.record("not refused as not well-formed: \(body)")
                continue
            }
            #expect(!why.isEmpty && why.count < 230 && !why.contains("\n"), "\(body): \(why)")
        }
        #expect(DAVXMLError.notWellFormed("x").reason.hasSuffix("x"))
    }

    // MARK: Answers

    @Test func aMultistatusReadsBackAsWritten() throws {
        let href = "/todo/dav/m0123456789abcdef/mine/" + DAVWriter.encodePathSegment("a b&c") + ".ics"
        let etag = "\"\(String(repeating: "0f", count: 20)).0a1b2c3d\""
        let token = "http://todo.invalid/sync/\(String(repeating: "ab", count: 20))/20261126"
        let bytes = DAVWriter.multistatus(
            [
                .propstats(
                    href: "/todo/dav/m0123456789abcdef/mine/",
                    [
                        DAVPropstat(
                            status: 200,
                            props: [
                                DAVProp(dav, "displayname", .text("Ann & Ben's <tasks>")),
                                DAVProp(dav, "resourcetype", .xml { w in
                                    w.empty(DAVNamespace.dav, "collection")
                                    w.empty(DAVNamespace.caldav, "calendar")
                                }),
                                DAVProp(caldav, "supported-calendar-component-set", .xml { w in
                                    w.empty(DAVNamespace.caldav, "comp", attributes: [(name: "name", value: "VTODO")])
                                    w.open(DAVNamespace.dav, "left-open")
                                }),
                                DAVProp(dav, "current-user-principal", .hrefs(["/todo/dav/m0123456789abcdef/"])),
                                DAVProp(DAVNamespace.calendarServer, "getctag", .text(token)),
                            ]),
                        DAVPropstat(status: 404, props: [DAVProp("urn:example:x", "color"), DAVProp(DAVNamespace.apple, "calendar-order"), DAVProp("", "plain")]),
                        DAVPropstat(status: 403, props: []),
                    ]),
                .propstats(href: href, [DAVPropstat(status: 200, props: [DAVProp(dav, "getetag", .text(etag))])]),
                .propstats(href: "/none/", [DAVPropstat(status: 200, props: [])]),
                .status(href: "/todo/dav/m0123456789abcdef/mine/gone.ics", status: 404),
            ], syncToken: token)
        #expect(bytes.starts(with: Array(#"<?xml version="1.0" encoding="utf-8"?>"#.utf8)))
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains(#"<d:multistatus xmlns:d="DAV:" xmlns:c="urn:ietf:params:xml:ns:caldav" xmlns:cs="http://calendarserver.org/ns/" xmlns:ical="http://apple.com/ns/ical/">"#))
        #expect(text.contains("<d:status>HTTP/1.1 200 OK</d:status>"))

        let root = try DAVXML.parse(bytes)
        #expect(root.is(dav, "multistatus"))
        let responses = root.children(dav, "response")
        #expect(responses.map { $0.child(dav, "href")?.text } == [
            "/todo/dav/m0123456789abcdef/mine/", "/todo/dav/m0123456789abcdef/mine/a%20b%26c.ics", "/none/",
            "/todo/dav/m0123456789abcdef/mine/gone.ics",
        ])
        #expect(root.child(dav, "sync-token")?.text == token)
        #expect(root.children.last?.is(dav, "sync-token") == true)

        let propstats = responses[0].children(dav, "propstat")
        #expect(propstats.map { $0.child(dav, "status")?.text } == ["HTTP/1.1 200 OK", "HTTP/1.1 404 Not Found"])
        let found = try #require(propstats[0].child(dav, "prop"))
        #expect(found.child(dav, "displayname")?.text == "Ann & Ben's <tasks>")
        #expect(found.child(dav, "resourcetype")?.children.map { "\($0.namespace) \($0.name)" } == ["DAV: collection", "\(caldav) calendar"])
        let set = try #require(found.child(caldav, "supported-calendar-component-set"))
        #expect(set.child(caldav, "comp")?.attribute("name") == "VTODO")
        #expect(set.child(dav, "left-open") != nil)
        #expect(found.child(dav, "current-user-principal")?.children(dav, "href").map(\.text) == ["/todo/dav/m0123456789abcdef/"])
        #expect(found.child(DAVNamespace.calendarServer, "getctag")?.text == token)
        let missing = try #require(propstats[1].child(dav, "prop"))
        #expect(missing.children.map { "\($0.namespace) \($0.name)" } == ["urn:example:x color", "\(DAVNamespace.apple) calendar-order", " plain"])

        #expect(responses[1].child(dav, "propstat")?.child(dav, "prop")?.child(dav, "getetag")?.text == etag)
        // Every propstat empty: one is still written, since a response needs one.
        #expect(responses[2].children(dav, "propstat").count == 1)
        #expect(responses[2].child(dav, "propstat")?.child(dav, "prop")?.children == [])
        #expect(responses[3].child(dav, "status")?.text == "HTTP/1.1 404 Not Found")
        #expect(responses[3].child(dav, "propstat") == nil)
    }

    /// Markup characters escaped; characters XML cannot hold dropped; tab, line feed and carriage
    /// return kept (the last as a reference, so it is not read as a line feed); `]]>` harmless.
    @Test func textIsEscapedAndWhatXMLCannotHoldIsDropped() throws {
        let nasty = "a<b&c\"d'e>f\u{0}\u{1}\u{8}\u{B}\u{C}\u{1B}\u{1F}\u{FFFE}\u{FFFF}g\th\ni\r\nj ✓ 😀 ]]> <![CDATA[x]]>"
        let kept = "a<b&c\"d'e>fg\th\ni\r\nj ✓ 😀 ]]> <![CDATA[x]]>"
        var w = DAVWriter()
        w.open(dav, "prop")
        w.element(dav, "displayname", text: nasty)
        w.empty(caldav, "comp", attributes: [(name: "name", value: nasty)])
        let bytes = w.finish()
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.contains("a&lt;b&amp;c&quot;d'e&gt;fg\th\ni&#13;\nj ✓ 😀 ]]&gt; &lt;![CDATA[x]]&gt;</d:displayname>"))
        #expect(!bytes.contains { $0 < 0x20 && $0 != 0x09 && $0 != 0x0A })
        let root = try DAVXML.parse(bytes)
        #expect(root.child(dav, "displayname")?.text == kept)
        #expect(root.child(caldav, "comp")?.attribute("name") == kept)
    }

    /// Only U+FFFE and U+FFFF of the three-byte characters starting `EF BF` or `EF BE` are
    /// dropped, wherever they stand; a run of plain text between escapes comes through whole.
    @Test func theNoncharactersAreDroppedAndTheirNeighboursKept() throws {
        let cases: [(String, String)] = [
            ("\u{FFFE}", ""), ("x\u{FFFF}", "x"), ("\u{FFFD}\u{FFBE}\u{FFFF}\u{FEFF}", "\u{FFFD}\u{FFBE}\u{FEFF}"),
            ("plain text, long enough to be one run of bytes & one more", "plain text, long enough to be one run of bytes &amp; one more"),
        ]
        for (given, written) in cases {
            var out: [UInt8] = []
            DAVWriter.escape(given, into: &out, attribute: false)
            #expect(String(decoding: out, as: UTF8.self) == written, "\(given.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        #expect(DAVWriter.isName("a\u{00B7}b") && !DAVWriter.isName("\u{00B7}a") && DAVWriter.isName("É"))
    }

    @Test func aNameThatIsNotAnXMLNameWritesNoTags() throws {
        var w = DAVWriter()
        w.open(dav, "prop")
        w.open(dav, "bad name")
        w.element(dav, "x\"><y", text: "inside")
        w.empty("urn:x", "1st")
        w.empty("urn:x", "")
        w.close()
        w.empty("urn:x:odd'ns", "odd-namespace")
        let root = try DAVXML.parse(w.finish())
        #expect(root.is(dav, "prop"))
        #expect(root.text == "inside")
        #expect(root.children.map { "\($0.namespace) \($0.name)" } == ["urn:x:odd'ns odd-namespace"])
        #expect(DAVWriter.isName("calendar-home-set") && DAVWriter.isName("_x.1") && DAVWriter.isName("épicerie"))
        #expect(!DAVWriter.isName("") && !DAVWriter.isName("1a") && !DAVWriter.isName("a:b") && !DAVWriter.isName("-a"))
    }

    @Test func anErrorNamesItsPreconditionAndAReason() throws {
        let bytes = DAVWriter.error(caldav, "supported-calendar-data", reason: "Only VTODO <tasks> & nothing else.")
        let root = try DAVXML.parse(bytes)
        #expect(root.is(dav, "error"))
        #expect(root.children.map { "\($0.namespace) \($0.name)" } == ["\(caldav) supported-calendar-data", "http://todo.invalid/ns reason"])
        #expect(root.child("http://todo.invalid/ns", "reason")?.text == "Only VTODO <tasks> & nothing else.")
    }

    @Test func statusLinesAndPathSegments() {
        #expect([200, 403, 404, 409, 412, 424, 507].map(DAVWriter.statusLine) == [
            "HTTP/1.1 200 OK", "HTTP/1.1 403 Forbidden", "HTTP/1.1 404 Not Found", "HTTP/1.1 409 Conflict", "HTTP/1.1 412 Precondition Failed",
            "HTTP/1.1 424 Failed Dependency", "HTTP/1.1 507 Insufficient Storage",
        ])
        #expect(DAVWriter.statusLine(299) == "HTTP/1.1 299 ")
        #expect(DAVWriter.encodePathSegment("AZaz09-._~") == "AZaz09-._~")
        #expect(DAVWriter.encodePathSegment("Ann's list é/x%?#&+") == "Ann%27s%20list%20%C3%A9%2Fx%25%3F%23%26%2B")
        #expect(DAVWriter.encodePathSegment("") == "")
    }
}
