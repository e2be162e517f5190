/// Upper bounds of what `DAVWriter` writes, for an answer's size before its first byte
/// (docs/CALDAV.md, "Limits").
extension DAVWriter {
    /// How many bytes `escape` writes for `s`, at most.
    static func escapedLength(_ s: String) -> Int {
        var n = 0
        for b in s.utf8 { n += escapedLength(b) }
        return n
    }

    /// How many bytes `escape` writes for the text whose UTF-8 is `bytes`, at most (a character
    /// it drops is counted as kept).
    static func escapedLength(_ bytes: [UInt8]) -> Int {
        var n = 0
        for b in bytes { n += escapedLength(b) }
        return n
    }

    @inline(__always)
    private static func escapedLength(_ b: UInt8) -> Int {
        switch b {
        case 0x26: 5  // &amp;
        case 0x3C, 0x3E: 4  // &lt; &gt;
        case 0x22: 6  // &quot;
        case 0x0D, 0x09, 0x0A: 5  // &#13; (and &#9; &#10; in an attribute)
        default: 1
        }
    }

    /// At most how many bytes the start and end tags of a property take (`<p:name …>` and
    /// `</p:name>`, or `<p:name …/>`), its namespace's declaration included. A prefix of this
    /// writer's own (`x` and a count) is taken to be 12 bytes long with its colon: no answer
    /// declares 10^10 of them.
    static func tagsBound(_ namespace: String, _ name: String) -> Int {
        let qualified = name.utf8.count + 12
        var n = 2 * qualified + 5
        if !namespace.isEmpty && !prefixes.contains(where: { $0.namespace == namespace }) {
            n += 20 + escapedLength(namespace)
        }
        return n
    }

    /// At most how many bytes `prop(p)` writes, in any answer: measured by writing it, plus the
    /// room a longer prefix of this writer's own would take in its tags.
    static func bound(_ p: DAVProp) -> Int {
        switch p.value {
        case .empty: return tagsBound(p.namespace, p.name)
        case .text(let s): return tagsBound(p.namespace, p.name) + escapedLength(s)
        case .hrefs(let hrefs): return tagsBound(p.namespace, p.name) + hrefs.reduce(0) { $0 + 20 + escapedLength($1) }
        case .xml:
            var w = DAVWriter()
            w.open(DAVNamespace.dav, "x")
            let before = w.bytes.count
            w.prop(p)
            // Each element the builder writes in a namespace of its own may have a prefix up to
            // 10 digits longer than here, in both tags and its declaration.
            return w.bytes.count - before + 32 * max(1, w.otherPrefixes)
        }
    }

    /// At most how many bytes `response(entry)` writes, apart from the properties of its
    /// propstats: the response, its href, and two propstats' tags and status lines.
    static func responseBound(href: String) -> Int {
        400 + escapedLength(href)
    }

    /// At most how many bytes a multistatus writes apart from its responses: the declaration,
    /// the root element with its namespaces, and the sync token.
    static func multistatusBound(syncToken: String?) -> Int {
        512 + (syncToken.map { 40 + escapedLength($0) } ?? 0)
    }
}
