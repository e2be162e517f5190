/// Reads iCalendar objects (RFC 5545) that CalDAV clients send: content lines unfolded, split
/// into name, parameters and value, and nested into components. The bytes are untrusted, so every
/// size is bounded (the whole object, one line, the count of properties, the depth) and anything
/// malformed is refused with a reason, never trapped on. The writer is `ICalendarText`.
public enum ICalendarReader {
    /// The longest content line, unfolded, in bytes.
    public static let maxLineBytes = 64 * 1024
    /// The most properties an object may hold (all its components together).
    public static let maxProperties = 2_000
    /// The deepest nesting of components (VCALENDAR is depth 1).
    public static let maxDepth = 8

    /// The VCALENDAR component of `bytes`. Lines may end in CRLF or LF alone; a line that starts
    /// with a space or tab continues the one before (the space or tab removed); empty lines are
    /// skipped. Refused: more than `maxBytes` bytes, bytes that are not UTF-8, a raw control
    /// character (other than tab) in a line, a line over `maxLineBytes`, more than
    /// `maxProperties` properties, components deeper than `maxDepth` or unbalanced, anything
    /// before `BEGIN:VCALENDAR` or after its `END`.
    public static func parse(_ bytes: [UInt8], maxBytes: Int = 256 * 1024) throws(ICalendarError) -> ICalComponent {
        guard bytes.count <= maxBytes else { throw ICalendarError("the calendar object is larger than \(maxBytes) bytes") }
        guard String(validating: bytes, as: UTF8.self) != nil else { throw ICalendarError("the calendar object is not UTF-8") }
        var stack: [ICalComponent] = []
        var root: ICalComponent?
        var properties = 0
        func handle(_ line: ArraySlice<UInt8>, number: Int) throws(ICalendarError) {
            func fail(_ reason: String) -> ICalendarError { ICalendarError("line \(number): " + reason) }
            guard root == nil else { throw fail("content after END:VCALENDAR") }
            let property = try parseLine(line, number: number)
            switch property.name {
            case "BEGIN":
                let name = property.value.trimmingSpaces.uppercased()
                guard isName(name.utf8) else { throw fail("BEGIN names no component") }
                if stack.isEmpty && name != "VCALENDAR" { throw fail("not an iCalendar object (BEGIN:VCALENDAR expected)") }
                guard stack.count < maxDepth else { throw fail("components nested deeper than \(maxDepth)") }
                stack.append(ICalComponent(name: name))
            case "END":
                let name = property.value.trimmingSpaces.uppercased()
                guard let open = stack.popLast() else { throw fail("END:\(name) without BEGIN") }
                guard open.name == name else { throw fail("END:\(name) where END:\(open.name) was expected") }
                if stack.isEmpty {
                    root = open
                } else {
                    stack[stack.count - 1].components.append(open)
                }
            default:
                guard !stack.isEmpty else { throw fail("not an iCalendar object (BEGIN:VCALENDAR expected)") }
                properties += 1
                guard properties <= maxProperties else { throw fail("more than \(maxProperties) properties") }
                stack[stack.count - 1].properties.append(property)
            }
        }
        try unfold(bytes) { line, number throws(ICalendarError) in try handle(line, number: number) }
        if let open = stack.last { throw ICalendarError("END:\(open.name) is missing") }
        guard let root else { throw ICalendarError("not an iCalendar object (no BEGIN:VCALENDAR)") }
        return root
    }

    /// Calls `body` with each unfolded content line (without its line end) and the number of the
    /// physical line it starts on.
    static func unfold(
        _ bytes: [UInt8], _ body: (ArraySlice<UInt8>, Int) throws(ICalendarError) -> Void
    ) throws(ICalendarError) {
        var current: [UInt8] = []
        var currentNumber = 0
        var started = false
        var number = 0
        var i = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while i < bytes.count {
            number += 1
            var end = i
            while end < bytes.count && bytes[end] != 0x0A { end += 1 }
            var contentEnd = end
            if contentEnd > i && bytes[contentEnd - 1] == 0x0D { contentEnd -= 1 }
            let physical = bytes[i..<contentEnd]
            i = end + 1
            for b in physical where (b < 0x20 && b != 0x09) || b == 0x7F {
                throw ICalendarError("line \(number): a raw control character (\(hexByte(b)))")
            }
            if physical.isEmpty {
                if started { try body(current[...], currentNumber) }
                started = false
                continue
            }
            if physical.first == 0x20 || physical.first == 0x09 {
                guard started else { throw ICalendarError("line \(number): a continuation line with no line before it") }
                guard current.count + physical.count - 1 <= maxLineBytes else {
                    throw ICalendarError("line \(currentNumber): a content line longer than \(maxLineBytes) bytes")
                }
                current.append(contentsOf: physical.dropFirst())
                continue
            }
            if started { try body(current[...], currentNumber) }
            guard physical.count <= maxLineBytes else {
                throw ICalendarError("line \(number): a content line longer than \(maxLineBytes) bytes")
            }
            current.removeAll(keepingCapacity: true)
            current.append(contentsOf: physical)
            currentNumber = number
            started = true
        }
        if started { try body(current[...], currentNumber) }
    }

    /// `name *(";" param) ":" value`: a parameter's value quoted in DQUOTEs may hold `:` `;` `,`.
    static func parseLine(_ line: ArraySlice<UInt8>, number: Int) throws(ICalendarError) -> ICalProperty {
        func fail(_ reason: String) -> ICalendarError { ICalendarError("line \(number): " + reason) }
        var i = line.startIndex
        func word() -> ArraySlice<UInt8> {
            let from = i
            while i < line.endIndex, isNameByte(line[i]) { i += 1 }
            return line[from..<i]
        }
        let name = word()
        guard !name.isEmpty else { throw fail("a content line with no property name") }
        var params: [(name: String, value: String)] = []
        while i < line.endIndex && line[i] == UInt8(ascii: ";") {
            i += 1
            let pname = word()
            guard !pname.isEmpty, i < line.endIndex, line[i] == UInt8(ascii: "=") else {
                throw fail("a malformed parameter of \(text(name).uppercased())")
            }
            i += 1
            var values: [String] = []
            repeat {
                if i < line.endIndex && line[i] == UInt8(ascii: ",") { i += 1 }
                if i < line.endIndex && line[i] == 0x22 {
                    let from = i + 1
                    i = from
                    while i < line.endIndex && line[i] != 0x22 { i += 1 }
                    guard i < line.endIndex else { throw fail("a parameter's quotes are not closed") }
                    values.append(text(line[from..<i]))
                    i += 1
                } else {
                    let from = i
                    while i < line.endIndex, !isParamStop(line[i]) { i += 1 }
                    values.append(text(line[from..<i]))
                }
            } while i < line.endIndex && line[i] == UInt8(ascii: ",")
            params.append((text(pname).uppercased(), values.joined(separator: ",")))
        }
        guard i < line.endIndex, line[i] == UInt8(ascii: ":") else {
            throw fail("\(text(name).uppercased()) has no value (\":\" expected)")
        }
        return ICalProperty(
            name: text(name).uppercased(), params: params, value: text(line[(i + 1)...]), line: text(line))
    }

    static func isNameByte(_ b: UInt8) -> Bool {
        (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2D
    }

    /// `;` `:` `,` or DQUOTE: where an unquoted parameter value ends.
    static func isParamStop(_ b: UInt8) -> Bool { b == 0x3B || b == 0x3A || b == 0x2C || b == 0x22 }

    static func isName(_ s: String.UTF8View) -> Bool { !s.isEmpty && s.allSatisfy(isNameByte) }

    static func text(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    static func hexByte(_ b: UInt8) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        return "0x" + String(decoding: [digits[Int(b >> 4)], digits[Int(b & 15)]], as: UTF8.self)
    }

    /// Unescapes a TEXT value: `\\` `\;` `\,` `\n` `\N`; any other backslash is kept as written.
    public static func unescape(_ raw: Substring) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(raw.utf8.count)
        var escaped = false
        for b in raw.utf8 {
            if escaped {
                escaped = false
                switch b {
                case 0x5C, 0x3B, 0x2C: out.append(b)
                case UInt8(ascii: "n"), UInt8(ascii: "N"): out.append(0x0A)
                default: out += [0x5C, b]
                }
            } else if b == 0x5C {
                escaped = true
            } else {
                out.append(b)
            }
        }
        if escaped { out.append(0x5C) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Whether `s` holds a control character (C0, DEL or C1, tab and line breaks included).
    public static func hasControl(_ s: String) -> Bool {
        s.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }
    }
}

/// Why an iCalendar object was refused, in words fit for an HTTP error body.
public struct ICalendarError: Error, Equatable, Sendable, CustomStringConvertible {
    public let reason: String
    public init(_ reason: String) { self.reason = reason }
    public var description: String { reason }
}

/// A component (`BEGIN:NAME` … `END:NAME`): its properties and its components, in order.
/// Names are stored uppercased.
public struct ICalComponent: Equatable, Sendable {
    public var name: String
    public var properties: [ICalProperty]
    public var components: [ICalComponent]

    public init(name: String, properties: [ICalProperty] = [], components: [ICalComponent] = []) {
        self.name = name
        self.properties = properties
        self.components = components
    }

    /// The first property named `name` (uppercase).
    public func first(_ name: String) -> ICalProperty? { properties.first { $0.name == name } }

    /// The content lines of the component as read: BEGIN, its property lines, its components,
    /// END (properties before components, as RFC 5545's grammar orders them).
    public var lines: [String] {
        var out = ["BEGIN:" + name]
        out += properties.map(\.line)
        for c in components { out += c.lines }
        out.append("END:" + name)
        return out
    }
}

/// One content line: its name (uppercased), its parameters (names uppercased; a parameter's
/// values without their quotes, several joined by commas), its value as written (still
/// escaped) and the whole unfolded line as written, to give back unchanged.
public struct ICalProperty: Equatable, Sendable {
    public var name: String
    public var params: [(name: String, value: String)]
    public var value: String
    public var line: String

    public init(name: String, params: [(name: String, value: String)], value: String, line: String) {
        self.name = name
        self.params = params
        self.value = value
        self.line = line
    }

    public static func == (a: ICalProperty, b: ICalProperty) -> Bool {
        a.name == b.name && a.value == b.value && a.line == b.line && a.params.count == b.params.count
            && zip(a.params, b.params).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    /// The value of the first parameter named `name` (uppercase).
    public func param(_ name: String) -> String? { params.first { $0.name == name }?.value }

    /// The value as TEXT, unescaped.
    public var textValue: String { ICalendarReader.unescape(Substring(value)) }

    /// The value as a list of TEXT (CATEGORIES): split at the commas that are not escaped, each
    /// part unescaped.
    public var textList: [String] {
        var parts: [String] = []
        var from = value.utf8.startIndex
        var escaped = false
        var i = from
        while i < value.utf8.endIndex {
            let b = value.utf8[i]
            if escaped {
                escaped = false
            } else if b == 0x5C {
                escaped = true
            } else if b == 0x2C {
                parts.append(ICalendarReader.unescape(value[from..<i]))
                from = value.utf8.index(after: i)
            }
            i = value.utf8.index(after: i)
        }
        parts.append(ICalendarReader.unescape(value[from...]))
        return parts
    }
}
