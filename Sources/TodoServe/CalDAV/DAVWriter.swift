/// A property in an answer: its namespace URI, local name and value.
struct DAVProp: Sendable {
    enum Value: Sendable {
        /// `<name/>`: a property asked for that has no value, or any property in a 404 propstat.
        case empty
        /// Character data, escaped on the way out.
        case text(String)
        /// One `<d:href>` each, written as given: the caller passes paths already percent-encoded.
        case hrefs([String])
        /// Any content, written through the writer (its prefixes, its escaping) between the
        /// property's start and end tags.
        case xml(@Sendable (inout DAVWriter) -> Void)
    }

    let namespace: String
    let name: String
    let value: Value

    init(_ namespace: String, _ name: String, _ value: Value = .empty) {
        self.namespace = namespace
        self.name = name
        self.value = value
    }
}

/// One `<d:propstat>`: a status and the properties it covers.
struct DAVPropstat: Sendable {
    let status: Int
    let props: [DAVProp]
}

/// One `<d:response>` of a multistatus.
enum DAVResponseEntry: Sendable {
    /// The resource as a whole has this status (a member gone since a sync token: 404).
    case status(href: String, status: Int)
    /// The resource's properties, grouped by status.
    case propstats(href: String, [DAVPropstat])
}

/// Builds an XML answer as UTF-8 bytes.
///
/// The namespaces CalDAV answers use have fixed prefixes, declared on the root element: `d` DAV:,
/// `c` CalDAV, `cs` calendarserver.org, `ical` apple.com. An element in any other namespace (a
/// property a client asked for that this server does not know) declares a prefix of its own on
/// itself; an element in no namespace ("") has no prefix. Text is escaped; characters XML cannot
/// carry are dropped (control characters other than tab, line feed and carriage return; U+FFFE,
/// U+FFFF); a carriage return is written `&#13;` so that it reaches the client as itself rather
/// than as a line feed. A name that is not a valid XML name writes no tags (its content is still
/// written), so the document stays well-formed whatever a caller passes.
struct DAVWriter {
    static let prefixes: [(prefix: String, namespace: String)] = [
        ("d", DAVNamespace.dav), ("c", DAVNamespace.caldav), ("cs", DAVNamespace.calendarServer), ("ical", DAVNamespace.apple),
    ]

    /// The document so far, starting with its XML declaration.
    private(set) var bytes: [UInt8] = Array(#"<?xml version="1.0" encoding="utf-8"?>"#.utf8) + [UInt8(ascii: "\n")]
    /// An element's prefix ("" for none) and local name.
    private struct Tag {
        let prefix: String
        let name: String
    }

    /// The open elements, innermost last; nil for one whose name was invalid.
    private var stack: [Tag?] = []
    private var rootWritten = false
    /// Prefixes of its own declared so far (`x1`, `x2`, …).
    private(set) var otherPrefixes = 0

    init() {}

    /// `<name>` (the first element of the document declares the fixed prefixes). `attributes`
    /// are unprefixed, in no namespace, as CalDAV's `name` and `collation`.
    mutating func open(_ namespace: String, _ name: String, attributes: [(name: String, value: String)] = []) {
        let tag = startTag(namespace, name, attributes: attributes)
        if tag != nil { bytes.append(UInt8(ascii: ">")) }
        stack.append(tag)
    }

    /// The end tag of the innermost open element; nothing when none is open.
    mutating func close() {
        guard let last = stack.popLast() else { return }
        if let last {
            bytes.append(UInt8(ascii: "<"))
            bytes.append(UInt8(ascii: "/"))
            write(last)
            bytes.append(UInt8(ascii: ">"))
        }
    }

    /// `<name/>`.
    mutating func empty(_ namespace: String, _ name: String, attributes: [(name: String, value: String)] = []) {
        if startTag(namespace, name, attributes: attributes) != nil {
            bytes.append(UInt8(ascii: "/"))
            bytes.append(UInt8(ascii: ">"))
        }
    }

    /// `<name>text</name>`.
    mutating func element(_ namespace: String, _ name: String, text: String) {
        open(namespace, name)
        self.text(text)
        close()
    }

    /// Character data, escaped.
    mutating func text(_ s: String) {
        Self.escape(s, into: &bytes, attribute: false)
    }

    /// A fragment already escaped and well-formed, written as it is; its prefixes must be the
    /// fixed ones or declared within it.
    mutating func raw(_ fragment: String) {
        bytes.append(contentsOf: fragment.utf8)
    }

    /// The document with every element still open closed.
    mutating func finish() -> [UInt8] {
        while !stack.isEmpty { close() }
        return bytes
    }

    /// Writes `<p:name` with its declarations and attributes (not the closing `>` or `/>`), and
    /// returns the prefix ("" for none) and name; writes nothing and returns nil for a name that
    /// is not valid.
    private mutating func startTag(_ namespace: String, _ name: String, attributes: [(name: String, value: String)]) -> Tag? {
        guard Self.isName(name) else { return nil }
        let prefix: String
        var declared = false
        if namespace.isEmpty {
            prefix = ""
        } else if let fixed = Self.prefixes.first(where: { $0.namespace == namespace }) {
            prefix = fixed.prefix
        } else {
            // Unique in the document, so that it cannot clash with one declared further out.
            otherPrefixes += 1
            prefix = "x\(otherPrefixes)"
            declared = true
        }
        let tag = Tag(prefix: prefix, name: name)
        bytes.append(UInt8(ascii: "<"))
        write(tag)
        writeRootDeclarations()
        if declared {
            bytes.append(contentsOf: " xmlns:\(prefix)=\"".utf8)
            Self.escape(namespace, into: &bytes, attribute: true)
            bytes.append(UInt8(ascii: "\""))
        }
        for a in attributes where Self.isName(a.name) {
            bytes.append(UInt8(ascii: " "))
            bytes.append(contentsOf: a.name.utf8)
            bytes.append(UInt8(ascii: "="))
            bytes.append(UInt8(ascii: "\""))
            Self.escape(a.value, into: &bytes, attribute: true)
            bytes.append(UInt8(ascii: "\""))
        }
        return tag
    }

    /// `p:name`, or `name` without a prefix.
    private mutating func write(_ tag: Tag) {
        if !tag.prefix.isEmpty {
            bytes.append(contentsOf: tag.prefix.utf8)
            bytes.append(UInt8(ascii: ":"))
        }
        bytes.append(contentsOf: tag.name.utf8)
    }

    /// The fixed prefixes' declarations, on the document's first element only.
    private mutating func writeRootDeclarations() {
        guard !rootWritten else { return }
        rootWritten = true
        for p in Self.prefixes { bytes.append(contentsOf: " xmlns:\(p.prefix)=\"\(p.namespace)\"".utf8) }
    }

    /// Whether `s` is an XML name without a colon (an NCName), by a conservative reading: ASCII
    /// letters, `_` or any non-ASCII letter first; then also digits, `-` and `.`. Every name this
    /// server writes, and every name libxml2 read from a request, passes.
    static func isName(_ s: String) -> Bool {
        var ascii = true
        var first = true
        for b in s.utf8 {
            if b >= 0x80 {
                ascii = false
                break
            }
            let letter = (b >= 0x61 && b <= 0x7A) || (b >= 0x41 && b <= 0x5A) || b == 0x5F
            if first {
                guard letter else { return false }
                first = false
            } else if !(letter || (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x2E) {
                return false
            }
        }
        if ascii { return !first }
        guard let head = s.unicodeScalars.first else { return false }
        func start(_ c: Unicode.Scalar) -> Bool {
            (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c == "_" || (c.value >= 0xC0 && c.properties.isAlphabetic)
        }
        return start(head)
            && s.unicodeScalars.allSatisfy { c in
                start(c) || (c >= "0" && c <= "9") || c == "-" || c == "." || c.value == 0xB7
                    || (c.value >= 0x300 && (c.properties.isAlphabetic || c.properties.generalCategory == .nonspacingMark))
            }
    }

    /// `s` as XML character data: `&`, `<`, `>` and `"` as entities, a carriage return (and in an
    /// attribute a tab or line feed, which a parser would turn into spaces) as a character
    /// reference, characters XML 1.0 does not allow dropped.
    static func escape(_ s: String, into out: inout [UInt8], attribute: Bool) {
        var s = s
        s.withUTF8 { escape(utf8: $0, into: &out, attribute: attribute) }
    }

    /// `escape` of text given as valid UTF-8. A run of bytes that need no change is copied whole.
    static func escape(utf8 text: UnsafeBufferPointer<UInt8>, into out: inout [UInt8], attribute: Bool) {
        out.reserveCapacity(out.count + text.count)
        var run = 0
        var i = 0
        let n = text.count
        while i < n {
            let b = text[i]
            let replacement: StaticString?
            var skip = 1
            switch b {
            case 0x26: replacement = "&amp;"
            case 0x3C: replacement = "&lt;"
            case 0x3E: replacement = "&gt;"
            case 0x22: replacement = "&quot;"
            case 0x0D: replacement = "&#13;"
            case 0x09: replacement = attribute ? "&#9;" : nil
            case 0x0A: replacement = attribute ? "&#10;" : nil
            case 0..<0x20: replacement = ""
            // U+FFFE and U+FFFF: EF BF BE, EF BF BF.
            case 0xEF where i + 2 < n && text[i + 1] == 0xBF && text[i + 2] >= 0xBE:
                replacement = ""
                skip = 3
            default: replacement = nil
            }
            if let replacement {
                if run < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: text[run..<i])) }
                replacement.withUTF8Buffer { out.append(contentsOf: $0) }
                i += skip
                run = i
            } else {
                i += 1
            }
        }
        if run < n { out.append(contentsOf: UnsafeBufferPointer(rebasing: text[run..<n])) }
    }

    /// `HTTP/1.1 404 Not Found`, as a `<d:status>` holds it.
    static func statusLine(_ code: Int) -> String {
        switch code {
        case 200: "HTTP/1.1 200 OK"
        case 201: "HTTP/1.1 201 Created"
        case 204: "HTTP/1.1 204 No Content"
        case 400: "HTTP/1.1 400 Bad Request"
        case 401: "HTTP/1.1 401 Unauthorized"
        case 403: "HTTP/1.1 403 Forbidden"
        case 404: "HTTP/1.1 404 Not Found"
        case 405: "HTTP/1.1 405 Method Not Allowed"
        case 409: "HTTP/1.1 409 Conflict"
        case 412: "HTTP/1.1 412 Precondition Failed"
        case 415: "HTTP/1.1 415 Unsupported Media Type"
        case 423: "HTTP/1.1 423 Locked"
        case 424: "HTTP/1.1 424 Failed Dependency"
        case 500: "HTTP/1.1 500 Internal Server Error"
        case 507: "HTTP/1.1 507 Insufficient Storage"
        default: "HTTP/1.1 \(code) "
        }
    }

    /// A `207 Multi-Status` body (RFC 4918 §13): one `<d:response>` per entry, and a
    /// `<d:sync-token>` after them when given (RFC 6578 §6.2).
    ///
    /// A propstat without properties is left out, unless every one of an entry is empty: then
    /// the first is written with an empty `<d:prop/>`, since a response needs a propstat.
    static func multistatus(_ responses: [DAVResponseEntry], syncToken: String? = nil) -> [UInt8] {
        var w = DAVWriter()
        w.open(DAVNamespace.dav, "multistatus")
        for entry in responses { w.response(entry) }
        if let syncToken { w.element(DAVNamespace.dav, "sync-token", text: syncToken) }
        return w.finish()
    }

    /// One `<d:response>` of a multistatus (see `multistatus`).
    mutating func response(_ entry: DAVResponseEntry) {
        open(DAVNamespace.dav, "response")
        switch entry {
        case .status(let href, let status):
            element(DAVNamespace.dav, "href", text: href)
            element(DAVNamespace.dav, "status", text: Self.statusLine(status))
        case .propstats(let href, let propstats):
            element(DAVNamespace.dav, "href", text: href)
            var kept = propstats.filter { !$0.props.isEmpty }
            if kept.isEmpty, let first = propstats.first { kept = [first] }
            for propstat in kept {
                open(DAVNamespace.dav, "propstat")
                open(DAVNamespace.dav, "prop")
                for prop in propstat.props { self.prop(prop) }
                close()
                element(DAVNamespace.dav, "status", text: Self.statusLine(propstat.status))
                close()
            }
        }
        close()
    }

    /// How many bytes are written and not yet taken.
    var count: Int { bytes.count }

    /// The bytes written since the last call (the first call's start with the declaration); the
    /// open elements stay open, so the document goes on where it stopped.
    mutating func take() -> [UInt8] {
        defer { bytes = [] }
        return bytes
    }

    /// One property element with its value.
    mutating func prop(_ prop: DAVProp) {
        switch prop.value {
        case .empty:
            empty(prop.namespace, prop.name)
        case .text(let s):
            element(prop.namespace, prop.name, text: s)
        case .hrefs(let hrefs):
            open(prop.namespace, prop.name)
            for href in hrefs { element(DAVNamespace.dav, "href", text: href) }
            close()
        case .xml(let build):
            open(prop.namespace, prop.name)
            let depth = stack.count
            build(&self)
            // Whatever the builder left open is closed here, so the property closes itself.
            while stack.count > depth { close() }
            close()
        }
    }

    /// The body of a refused request with a precondition (RFC 4918 §16, RFC 4791 §1.3):
    /// `<d:error><c:supported-calendar-data/>…</d:error>`, the precondition element named by
    /// `namespace` and `precondition`.
    ///
    /// The person-readable reason goes beside it as `<t:reason>` in this server's own namespace,
    /// `http://todo.invalid/ns`: RFC 4918 §16 lets an error element carry more than its
    /// precondition, and a client ignores elements it does not know (§17), so clients that show
    /// only the status are unaffected and a person reading the response sees why.
    static func error(_ namespace: String, _ precondition: String, reason: String) -> [UInt8] {
        var w = DAVWriter()
        w.open(DAVNamespace.dav, "error")
        w.empty(namespace, precondition)
        w.raw(#"<t:reason xmlns:t="http://todo.invalid/ns">"#)
        w.text(reason)
        w.raw("</t:reason>")
        return w.finish()
    }

    /// One path segment percent-encoded (RFC 3986 §2): the unreserved characters (ASCII letters,
    /// digits, `-`, `.`, `_`, `~`) as they are, every other UTF-8 byte as `%XX` with upper-case hex.
    static func encodePathSegment(_ s: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(b)
            default:
                out += [UInt8(ascii: "%"), hex[Int(b >> 4)], hex[Int(b & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
