/// Writes JSON in the canonical layout: 2-space indentation, one member per line, keys in the
/// order given, `"key": value` with one space, a trailing newline at the top level.
public struct JSONWriter {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    /// Canonical bytes of a whole document.
    public static func document(_ value: JSONValue) -> [UInt8] {
        var w = JSONWriter()
        w.bytes.reserveCapacity(1024)
        w.write(value, indent: 0)
        w.bytes.append(0x0A)
        return w.bytes
    }

    /// The value on one line, as used for `--json` lines and compact arrays.
    public static func compact(_ value: JSONValue) -> String {
        var w = JSONWriter()
        w.writeCompact(value)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    mutating func write(_ value: JSONValue, indent: Int) {
        switch value {
        case .object(let members) where !members.isEmpty:
            bytes.append(UInt8(ascii: "{"))
            for (n, (key, member)) in members.enumerated() {
                bytes.append(0x0A)
                pad(indent + 2)
                writeString(key)
                bytes.append(contentsOf: [UInt8(ascii: ":"), 0x20])
                write(member, indent: indent + 2)
                if n < members.count - 1 { bytes.append(UInt8(ascii: ",")) }
            }
            bytes.append(0x0A)
            pad(indent)
            bytes.append(UInt8(ascii: "}"))
        case .array(let items) where !items.isEmpty && items.contains(where: \.isContainer):
            bytes.append(UInt8(ascii: "["))
            for (n, item) in items.enumerated() {
                bytes.append(0x0A)
                pad(indent + 2)
                write(item, indent: indent + 2)
                if n < items.count - 1 { bytes.append(UInt8(ascii: ",")) }
            }
            bytes.append(0x0A)
            pad(indent)
            bytes.append(UInt8(ascii: "]"))
        default:
            // Scalars, empty containers and arrays of scalars stay on one line.
            writeCompact(value)
        }
    }

    mutating func writeCompact(_ value: JSONValue) {
        switch value {
        case .null: bytes.append(contentsOf: Array("null".utf8))
        case .bool(let b): bytes.append(contentsOf: Array((b ? "true" : "false").utf8))
        case .number(let n): bytes.append(contentsOf: Array(n.utf8))
        case .string(let s): writeString(s)
        case .array(let items):
            bytes.append(UInt8(ascii: "["))
            for (n, item) in items.enumerated() {
                if n > 0 { bytes.append(contentsOf: [UInt8(ascii: ","), 0x20]) }
                writeCompact(item)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            for (n, (key, member)) in members.enumerated() {
                if n > 0 { bytes.append(contentsOf: [UInt8(ascii: ","), 0x20]) }
                writeString(key)
                bytes.append(contentsOf: [UInt8(ascii: ":"), 0x20])
                writeCompact(member)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    private mutating func pad(_ n: Int) {
        for _ in 0..<n { bytes.append(0x20) }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Escapes quote, backslash and every control character (C0, DEL, C1, the line/paragraph
    /// separators and the bidirectional embeddings, overrides and isolates), so neither a
    /// written file nor `--json` output carries text that can rewrite or disguise a terminal.
    mutating func writeString(_ s: String) {
        bytes.append(0x22)
        for scalar in s.unicodeScalars {
            let v = scalar.value
            switch v {
            case 0x22: bytes.append(contentsOf: [0x5C, 0x22])
            case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0..<0x20, 0x7F..<0xA0, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069:
                bytes.append(contentsOf: [0x5C, UInt8(ascii: "u")])
                for shift in stride(from: 12, through: 0, by: -4) {
                    bytes.append(Self.hexDigits[Int((v >> UInt32(shift)) & 0xF)])
                }
            default:
                UTF8.encode(scalar) { bytes.append($0) }
            }
        }
        bytes.append(0x22)
    }
}

extension JSONValue {
    /// How many containers deep the value goes: 0 for a scalar, 1 for `[]` or `{"a": 1}`.
    var nesting: Int {
        switch self {
        case .array(let items): return 1 + (items.map(\.nesting).max() ?? 0)
        case .object(let members): return 1 + (members.map(\.1.nesting).max() ?? 0)
        default: return 0
        }
    }

    var isContainer: Bool {
        switch self {
        case .array, .object: return true
        default: return false
        }
    }
}
