import Glibc
public import SystemPackage

/// A failed call of the file layer: which call, on which file, and the errno the system gave.
/// Front ends word it by its errno (TodoWording `Worded`, README "Exit codes").
public struct FileError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The system call that failed.
    public enum Operation: String, Sendable, CaseIterable {
        case open, read, write, fsync, rename
    }

    public let operation: Operation
    /// The file the call was on (for a folder's fsync, the folder).
    public let path: String
    public let errno: Errno

    public init(_ operation: Operation, path: String, errno: Errno) {
        self.operation = operation
        self.path = path
        self.errno = errno
    }

    /// The system's own words for the errno ("Input/output error").
    public var reason: String { String(cString: strerror(errno.rawValue)) }

    public var description: String { "\(operation.rawValue) \(path): \(reason)" }
}
