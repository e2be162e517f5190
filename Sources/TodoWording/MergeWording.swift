public import TodoCore

/// The words for a merge that produced no file (`MergeFailure`) and for what a merge that did
/// produce one should tell (`MergeWarning`): the merge driver's, `todo sync`'s and a failed
/// change's messages.
public enum MergeWording {
    public static func text(_ failure: MergeFailure) -> String {
        let path = failure.path
        switch failure.reason {
        case .noReadableSide(let ours, let theirs):
            return "Cannot merge \(path): neither side is a readable task file (ours: \(ours); theirs: \(theirs))."
        case .differentTasks(let ours, let theirs):
            return "Cannot merge \(path): the two sides are different tasks (\(ours) and \(theirs))."
        case .tooLarge(let size):
            return "Cannot merge \(path): the merged file would be \(size) bytes, over the \(TaskCodec.maxFileSize)-byte limit."
        case .tooDeep(let field):
            return "Cannot merge \(path): a value of \"\(field)\" is nested too deeply to be kept in the conflict log (over \(TaskMerge.maxEntryValueDepth) levels)."
        }
    }

    public static func text(_ warning: MergeWarning) -> String {
        let (path, input) = (warning.path, warning.input.rawValue)
        switch warning.kind {
        case .invalidFile(let reason):
            return "\(path): the \(input) version is not a valid task file (\(reason)); kept the other version and saved its bytes in the conflict log."
        case .baseIgnored(let reason):
            return "\(path): the common ancestor was ignored (\(reason)); merged as if both sides had added the task."
        case .removed:
            return "\(path): the \(input) side removed the file while the other side kept it; kept the file."
        }
    }
}
