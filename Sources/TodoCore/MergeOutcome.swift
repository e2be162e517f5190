/// The result of merging three versions of one task file.
public enum MergeOutcome: Equatable, Sendable {
    /// The merged file. `entries` are the conflict entries this merge added to the file (entries
    /// already in either input are not repeated here); the file's `conflicts` array holds them
    /// all. `warnings` name inputs that could not be used as they were.
    case merged(bytes: [UInt8], entries: [ConflictEntry], warnings: [MergeWarning])
    /// No file could be produced; the caller must not write conflict markers in its place.
    case failed(MergeFailure)

    /// The merged bytes, if the merge succeeded.
    public var bytes: [UInt8]? {
        if case .merged(let bytes, _, _) = self { return bytes }
        return nil
    }
}

/// One of the three inputs of a merge, for messages.
public enum MergeInput: String, Sendable {
    case base, ours, theirs
}

/// Something the caller should tell the user about a merge that still produced a file.
public struct MergeWarning: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// The input could not be read (the reason says why); the other side was kept and the
        /// raw bytes went into an "invalid-file" entry.
        case invalidFile(reason: String)
        /// The base could not be read or is another task; merged as if there were no base.
        case baseIgnored(reason: String)
        /// The input removed the file while the other side kept it; the file was kept.
        case removed
    }

    /// The repository path of the file.
    public let path: String
    public let input: MergeInput
    public let kind: Kind

    public init(path: String, input: MergeInput, kind: Kind) {
        self.path = path
        self.input = input
        self.kind = kind
    }
}

/// Why a merge produced no file.
public struct MergeFailure: Error, Equatable, Sendable {
    public enum Reason: Equatable, Sendable {
        /// Neither side has a readable file: each reason is "removed" or why the file is invalid.
        case noReadableSide(ours: String, theirs: String)
        /// Both files are valid tasks but with different ids.
        case differentTasks(ours: TaskID, theirs: TaskID)
        /// The merged file, with its conflict log, would exceed `TaskCodec.maxFileSize`.
        case tooLarge(size: Int)
        /// A value that a conflict entry for `field` would record is nested so deeply that the
        /// merged file, where entries sit four levels down, would exceed `JSONParser.maxDepth`.
        case tooDeep(field: String)
    }

    public let path: String
    public let reason: Reason

    public init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }
}
