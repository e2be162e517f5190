/// What was wrong with bytes a decoder of this module refused, and where: the structure being
/// read, and the offset (from the start of the bytes given) at which the fault was found.
public enum FormatError: Error, Equatable, Sendable {
    /// The bytes end inside a field: `needed` more bytes were wanted at `at`.
    case truncated(FormatPart, at: Int, needed: Int)
    /// The magic bytes that open the structure are not there.
    case badSignature(FormatPart, at: Int)
    /// A version this module does not read.
    case unsupportedVersion(FormatPart, version: UInt32)
    /// A field holds a value the format does not allow here.
    case invalid(FormatPart, FormatProblem, at: Int)
}

/// The structures of git's formats this module decodes.
public enum FormatPart: String, Sendable {
    case packIndex = "pack index"
    case pack
    case packEntry = "pack entry"
    case delta
    case tree
    case commit
    case looseHeader = "loose object header"
    case index
    case indexEntry = "index entry"
    case indexExtension = "index extension"
    case bundle
}

/// The kinds of wrong value a `FormatError.invalid` names.
public enum FormatProblem: String, Sendable {
    /// A pack index's fan-out table falls from one byte to the next.
    case fanOutDecreases
    /// More objects or entries than the bytes could hold.
    case countTooLarge
    /// An offset or position that lies outside the bytes or table it points into.
    case outOfRange
    /// A pack entry or loose object of a type git does not have (or not allowed there).
    case unknownType
    /// A size above what the caller allows.
    case tooLarge
    /// A variable-length number longer than any this format writes.
    case numberTooLong
    /// A delta whose stated base size is not its base's size.
    case baseSizeMismatch
    /// A delta copy that reaches past the end of its base.
    case copyOutsideBase
    /// A delta that writes more, or less, than the result size it states.
    case resultSizeMismatch
    /// The delta opcode 0, which git reserves.
    case reservedOpcode
    /// A tree entry's mode that is not an octal number git writes.
    case badMode
    /// A tree entry or index entry with an empty name, or a name too long.
    case badName
    /// A commit line that is not the one expected here, or a hex id that is not 40 hex digits.
    case badLine
    /// A signature line without its "<e-mail>" or with a time that is not a number.
    case badSignatureLine
    /// A loose object header's size that is not a decimal number.
    case badSize
    /// An index entry with flags its version does not allow.
    case badFlags
    /// An index extension git requires readers to understand and this module does not.
    case unknownRequiredExtension
    /// An extension that appears twice or where it is not allowed.
    case misplacedExtension
    /// A line of a kind that may not come where it is (a bundle's prerequisite after its
    /// references).
    case misplacedLine
    /// A split index (the `link` extension, docs/FORMAT.md "The git index"): its entries are
    /// partly in another file, which is not read here.
    case splitIndex
    /// Bytes left over after the structure ends.
    case trailingBytes
    /// A trailing checksum that is not the checksum of the bytes before it.
    case badChecksum
}

extension FormatError: CustomStringConvertible {
    public var description: String {
        switch self {
        case .truncated(let part, let at, let needed): return "\(part.rawValue) cut short at byte \(at) (\(needed) more bytes wanted)"
        case .badSignature(let part, let at): return "\(part.rawValue) has no signature at byte \(at)"
        case .unsupportedVersion(let part, let version): return "\(part.rawValue) version \(version) is not read"
        case .invalid(let part, let problem, let at): return "\(part.rawValue): \(problem.rawValue) at byte \(at)"
        }
    }
}
