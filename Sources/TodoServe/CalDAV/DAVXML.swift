import CLibXML2

/// The XML namespaces CalDAV speaks in, as URIs (the prefixes a request uses are its own).
enum DAVNamespace {
    static let dav = "DAV:"
    static let caldav = "urn:ietf:params:xml:ns:caldav"
    static let calendarServer = "http://calendarserver.org/ns/"
    static let apple = "http://apple.com/ns/ical/"
}

/// One attribute of a parsed element: its namespace URI ("" for an unprefixed attribute, which
/// is in no namespace) and local name.
struct DAVAttribute: Sendable, Equatable {
    let namespace: String
    let name: String
    let value: String
}

/// An element of a request body, immutable: what `DAVXML.parse` returns.
///
/// `namespace` is the URI the element's prefix (or the default namespace) was bound to, "" when
/// none was; `name` is the local name. `text` is the element's own character data (text and
/// CDATA, entities and character references resolved) in document order, as written, except
/// that an element with child elements whose own text is only white space has `text` "": that is
/// the layout between the children, not content. Comments and processing instructions are left out.
struct DAVElement: Sendable, Equatable {
    let namespace: String
    let name: String
    let attributes: [DAVAttribute]
    let children: [DAVElement]
    let text: String

    /// The first child element with this namespace and local name.
    func child(_ namespace: String, _ name: String) -> DAVElement? {
        children.first { $0.is(namespace, name) }
    }

    /// Every child element with this namespace and local name, in document order.
    func children(_ namespace: String, _ name: String) -> [DAVElement] {
        children.filter { $0.is(namespace, name) }
    }

    /// Whether this element is `name` in `namespace`.
    func `is`(_ namespace: String, _ name: String) -> Bool {
        self.name == name && self.namespace == namespace
    }

    /// The value of an attribute; `namespace` "" (the default) is an unprefixed attribute, as
    /// CalDAV's `name`, `collation` and `negate-condition` are.
    func attribute(_ name: String, namespace: String = "") -> String? {
        attributes.first { $0.name == name && $0.namespace == namespace }?.value
    }
}

/// Why a request body was refused. Callers answer 400 (or 413 for `tooLarge`) with `reason`.
enum DAVXMLError: Error, Sendable, Equatable {
    /// No bytes at all (a PROPFIND without a body means allprop: the caller decides that).
    case empty
    /// More than `DAVXML.maximumBytes`, or one element's text longer than `DAVXML.maximumTextBytes`.
    case tooLarge
    /// libxml2's own words for what is wrong, at most 200 characters, with the line.
    case notWellFormed(String)
    /// A document type declaration or entity declaration: never parsed (no DTD, so no external
    /// entities and no entity expansion).
    case doctypeRefused
    /// Elements nested deeper than `DAVXML.maximumDepth`.
    case tooDeep
    /// More than `DAVXML.maximumElements` elements.
    case tooManyElements
    /// The bytes are not UTF-8.
    case notUTF8

    /// A sentence for the client.
    var reason: String {
        switch self {
        case .empty: "The request body is empty."
        case .tooLarge: "The request body is too large (at most \(DAVXML.maximumBytes) bytes, and as much text in one element)."
        case .notWellFormed(let why): "The request body is not well-formed XML: \(why)"
        case .doctypeRefused: "The request body has a document type or entity declaration, which this server does not accept."
        case .tooDeep: "The request body nests elements more than \(DAVXML.maximumDepth) deep."
        case .tooManyElements: "The request body has more than \(DAVXML.maximumElements) elements."
        case .notUTF8: "The request body is not UTF-8."
        }
    }
}

/// Parsing WebDAV and CalDAV request bodies (PROPFIND, PROPPATCH, REPORT, MKCALENDAR) with
/// libxml2, into `DAVElement`s.
///
/// The body comes from the internet, so: a body with `<!DOCTYPE` or `<!ENTITY` anywhere (any
/// case) is refused before libxml2 sees it, which leaves no external entity to fetch (XXE) and no
/// entity to expand (billion laughs); the parse forbids the network and loads no DTD, substitutes
/// no entities and keeps libxml2's own limits (no XML_PARSE_HUGE); size, depth, element count and
/// text length are bounded. The bytes must be UTF-8 (any encoding the XML declaration names is
/// ignored): every CalDAV client sends UTF-8. Nothing is printed; every failure is a `DAVXMLError`.
enum DAVXML {
    /// The largest body parsed: a PROPFIND or calendar-query is a few hundred bytes, a
    /// calendar-multiget a hundred bytes per item.
    static let maximumBytes = 1 << 20
    static let maximumDepth = 64
    static let maximumElements = 100_000
    /// The most UTF-8 bytes of character data one element may hold.
    static let maximumTextBytes = 1 << 20

    /// libxml2 sets up its tables once, before any thread parses; after that a parse with its own
    /// context is safe beside others. Its loader of external entities is replaced by one that
    /// loads nothing, in case a DTD ever got past the check.
    private static let initialized: Bool = {
        xmlInitParser()
        todo_xml_refuse_external_entities()
        return true
    }()

    /// XML_PARSE_NONET: no network, ever. NOERROR | NOWARNING: nothing printed (the error is read
    /// from the context). NOCDATA: CDATA sections become text, as they are to a reader.
    /// IGNORE_ENC: the bytes are UTF-8 whatever the declaration says (they were checked).
    /// Not NOBLANKS: without a DTD it guesses which white space is layout and can drop the single
    /// space a text-match searches for; layout is dropped below, knowing the structure.
    /// Not NOENT, DTDLOAD, DTDATTR, DTDVALID, XINCLUDE or HUGE.
    private static let options: Int32 = {
        let all = [XML_PARSE_NONET, XML_PARSE_NOERROR, XML_PARSE_NOWARNING, XML_PARSE_NOCDATA, XML_PARSE_IGNORE_ENC]
        return Int32(bitPattern: all.reduce(0) { $0 | $1.rawValue })
    }()

    /// The root element of `bytes`.
    static func parse(_ bytes: [UInt8]) throws(DAVXMLError) -> DAVElement {
        if bytes.isEmpty { throw .empty }
        if bytes.count > maximumBytes { throw .tooLarge }
        if containsDeclaration(bytes) { throw .doctypeRefused }
        // Refused before libxml2 builds a tree of them all; the walk counts exactly.
        if startTags(bytes) > maximumElements { throw .tooManyElements }
        if String(validating: bytes, as: UTF8.self) == nil { throw .notUTF8 }
        return try tree(bytes)
    }

    /// The parse itself, without the checks of the bytes `parse` makes first (the tests reach it
    /// to see that a DTD, were one let through, would still load and expand nothing).
    static func tree(_ bytes: [UInt8]) throws(DAVXMLError) -> DAVElement {
        if bytes.isEmpty { throw .empty }
        if bytes.count > maximumBytes { throw .tooLarge }
        _ = initialized
        todo_xml_silence()
        guard let context = xmlNewParserCtxt() else { throw .notWellFormed("out of memory") }
        defer { xmlFreeParserCtxt(context) }
        let document = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                // The size fits: at most maximumBytes.
                xmlCtxtReadMemory(context, chars.baseAddress, Int32(chars.count), nil, "UTF-8", options)
            }
        }
        defer { if let document { xmlFreeDoc(document) } }
        guard let document, context.pointee.wellFormed != 0 else { throw .notWellFormed(lastError(context)) }
        guard context.pointee.nsWellFormed != 0 else { throw .notWellFormed(lastError(context)) }
        guard let root = xmlDocGetRootElement(document) else { throw .notWellFormed("no root element") }
        var count = 0
        return try element(root, depth: 1, count: &count)
    }

    /// Whether `<!DOCTYPE` or `<!ENTITY` occurs anywhere in `bytes`, in any case.
    static func containsDeclaration(_ bytes: [UInt8]) -> Bool {
        let words: [[UInt8]] = [Array("<!doctype".utf8), Array("<!entity".utf8)]
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "<") {
                for word in words where i + word.count <= bytes.count {
                    var same = true
                    for (k, w) in word.enumerated() {
                        let b = bytes[i + k]
                        // ASCII letters to lower case; other bytes as they are.
                        let lower = b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z") ? b | 0x20 : b
                        if lower != w {
                            same = false
                            break
                        }
                    }
                    if same { return true }
                }
            }
            i += 1
        }
        return false
    }

    /// How many `<` begin something other than an end tag, a comment, CDATA or a declaration
    /// (`</`, `<!`, `<?`): at least as many as the elements.
    static func startTags(_ bytes: [UInt8]) -> Int {
        var count = 0
        var previousOpens = false
        for b in bytes {
            if previousOpens && b != UInt8(ascii: "/") && b != UInt8(ascii: "!") && b != UInt8(ascii: "?") { count += 1 }
            previousOpens = b == UInt8(ascii: "<")
        }
        return count
    }

    /// libxml2's message for the parse's first fatal error, one line, at most 200 characters.
    private static func lastError(_ context: xmlParserCtxtPtr) -> String {
        guard let error = xmlCtxtGetLastError(context), let message = error.pointee.message else {
            return "the parser gave no reason"
        }
        let words = String(cString: message).split(whereSeparator: \.isNewline).joined(separator: " ")
        let line = error.pointee.line > 0 ? " (line \(error.pointee.line))" : ""
        return String(words.prefix(200)) + line
    }

    private static func string(_ c: UnsafePointer<xmlChar>?) -> String {
        guard let c else { return "" }
        return String(cString: c)
    }

    /// The tree under `node` (an element) as a `DAVElement`; `count` counts elements so far.
    private static func element(_ node: xmlNodePtr, depth: Int, count: inout Int) throws(DAVXMLError) -> DAVElement {
        if depth > maximumDepth { throw .tooDeep }
        count += 1
        if count > maximumElements { throw .tooManyElements }
        var attributes: [DAVAttribute] = []
        var attribute = node.pointee.properties
        while let a = attribute {
            var value = ""
            var part = a.pointee.children
            while let p = part {
                if p.pointee.type == XML_TEXT_NODE { value += string(p.pointee.content) }
                part = p.pointee.next
            }
            if value.utf8.count > maximumTextBytes { throw .tooLarge }
            attributes.append(DAVAttribute(namespace: string(a.pointee.ns?.pointee.href), name: string(a.pointee.name), value: value))
            attribute = a.pointee.next
        }
        var children: [DAVElement] = []
        var text = ""
        var textBytes = 0
        var child = node.pointee.children
        while let c = child {
            switch c.pointee.type {
            case XML_ELEMENT_NODE:
                children.append(try element(c, depth: depth + 1, count: &count))
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                let piece = string(c.pointee.content)
                textBytes += piece.utf8.count
                if textBytes > maximumTextBytes { throw .tooLarge }
                text += piece
            default:
                break  // comments, processing instructions
            }
            child = c.pointee.next
        }
        if !children.isEmpty && text.allSatisfy({ $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            text = ""
        }
        return DAVElement(
            namespace: string(node.pointee.ns?.pointee.href), name: string(node.pointee.name), attributes: attributes,
            children: children, text: text)
    }
}
