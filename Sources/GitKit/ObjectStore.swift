import Glibc
import CLibgit2

// What a repository's object store holds, read from the file system (loose objects, packs,
// their counts and sizes, leftovers of an interrupted run), and the state of its references:
// what housekeeping (`Packing.swift`) decides from.

/// A loose object: its id, file, modification time and size on disk.
public struct LooseObject: Sendable {
    public let id: ObjectID
    public let path: String
    /// Modification time, seconds since the epoch.
    public let modified: Double
    /// Bytes it takes on disk (allocated blocks, as `du` counts).
    public let size: Int
}

/// A count of what an object store holds, read from the file system alone; bytes as `du`
/// counts them (allocated blocks).
public struct ObjectStoreState: Sendable, Equatable {
    public var looseObjects = 0
    public var looseBytes = 0
    public var packs = 0
    public var packBytes = 0
    public var bytes: Int { looseBytes + packBytes }
}

extension Repository {
    /// The loose objects under `objectsDirectory` (`.git/objects`), with their times and sizes.
    public static func looseObjects(in objectsDirectory: String) -> [LooseObject] {
        var out: [LooseObject] = []
        for fan in 0..<256 {
            let prefix = hexByte(fan)
            let folder = objectsDirectory + "/" + prefix
            for name in listDirectory(folder) where name.utf8.count == 38 {
                guard let id = ObjectID(hex: prefix + name) else { continue }
                var st = stat()
                let path = folder + "/" + name
                guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
                out.append(
                    LooseObject(
                        id: id, path: path,
                        modified: Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9, size: Int(st.st_blocks) * 512))
            }
        }
        return out
    }

    /// Loose objects in the fan-out folders `samples` (two hex digits each): the cheap estimate
    /// of git's `gc.auto`.
    public static func looseObjectCount(in objectsDirectory: String, sampling samples: [String]) -> Int {
        samples.reduce(0) { sum, prefix in
            sum + listDirectory(objectsDirectory + "/" + prefix).filter { $0.utf8.count == 38 }.count
        }
    }

    /// The packs in `objectsDirectory/pack` that have an index (`pack-<sha1>` names).
    public static func packNames(in objectsDirectory: String) -> [String] {
        let folder = objectsDirectory + "/pack/"
        return listDirectory(folder).filter { $0.hasSuffix(".pack") }.map { String($0.dropLast(5)) }
            .filter { access(folder + $0 + ".idx", F_OK) == 0 }.sorted()
    }

    /// The sizes of the packs `names` (as `packNames` lists them).
    public static func packSizes(_ names: [String], in objectsDirectory: String) -> [Int] {
        names.compactMap { name in
            var st = stat()
            return stat(objectsDirectory + "/pack/" + name + ".pack", &st) == 0 ? Int(st.st_size) : nil
        }
    }

    /// The numbers of objects of the packs `names` (from their indexes' headers).
    public static func packObjectCounts(_ names: [String], in objectsDirectory: String) -> [Int] {
        names.compactMap { objectCount(packIndex: objectsDirectory + "/pack/" + $0 + ".idx") }
    }

    /// Removes what killed writers left, which git counts as garbage: temporary object files
    /// (GitKit's `tmp_obj_*` in `objects/xx`, libgit2's `tmp_object_git2_*` in `objects/`),
    /// libgit2's temporary packs and lock files in `objects/pack` (`pack_git2_*`, `*.lock`), and
    /// an index whose pack is gone;
    /// then the fan-out folders that are empty, as git's prune does: each takes a block on
    /// disk. Only while no writer can be about to create an object or a pack (the caller holds
    /// the lock writers take and the one housekeeping takes): a writer makes the folder, then
    /// the temporary file, then the object.
    public static func removeLeftovers(in objectsDirectory: String) {
        for name in listDirectory(objectsDirectory) where name.hasPrefix("tmp_object_git2_") {
            unlink(objectsDirectory + "/" + name)
        }
        let packs = objectsDirectory + "/pack/"
        for name in listDirectory(packs) where name.hasPrefix("pack_git2_") || name.hasSuffix(".lock") { unlink(packs + name) }
        // An index, reverse index or bitmap whose pack is gone (a run killed between removing
        // the two): nothing can read it.
        for name in listDirectory(packs) {
            guard let dot = name.lastIndex(of: "."), [".idx", ".rev", ".bitmap"].contains(String(name[dot...])) else { continue }
            if access(packs + name[..<dot] + ".pack", F_OK) != 0 { unlink(packs + name) }
        }
        for fan in 0..<256 {
            let folder = objectsDirectory + "/" + hexByte(fan)
            for name in listDirectory(folder) where name.hasPrefix("tmp_obj_") { unlink(folder + "/" + name) }
            rmdir(folder)
        }
    }

    /// Counts loose objects and packs and their bytes.
    public static func objectStoreState(_ objectsDirectory: String) -> ObjectStoreState {
        var state = ObjectStoreState()
        for object in looseObjects(in: objectsDirectory) {
            state.looseObjects += 1
            state.looseBytes += object.size
        }
        let folder = objectsDirectory + "/pack/"
        state.packs = packNames(in: objectsDirectory).count
        for name in listDirectory(folder) {
            var st = stat()
            if stat(folder + name, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG { state.packBytes += Int(st.st_blocks) * 512 }
        }
        return state
    }

    /// Every reference but `HEAD`: its name, and its target or, for a symbolic one, the name
    /// it points at.
    func forEachReference(_ body: (String, ObjectID?, String?) throws -> Void) throws {
        var iterator: OpaquePointer?
        try check(git_reference_iterator_new(&iterator, handle), call: "git_reference_iterator_new")
        defer { git_reference_iterator_free(iterator) }
        var ref: OpaquePointer?
        while true {
            let rc = git_reference_next(&ref, iterator)
            if rc == GIT_ITEROVER.rawValue { break }
            try check(rc, call: "git_reference_next")
            defer { git_reference_free(ref) }
            try body(
                String(cString: git_reference_name(ref)), git_reference_target(ref).map { ObjectID($0.pointee) },
                git_reference_symbolic_target(ref).map { String(cString: $0) })
        }
    }

    /// Every reference (name and target), `HEAD`, and the index file's identity, as one string:
    /// equal strings mean nothing could have come to refer to another object meanwhile.
    public func referenceState() throws -> String {
        var lines: [String] = []
        try forEachReference { name, target, symbolic in
            if let target {
                lines.append(name + " " + target.hex)
            } else if let symbolic {
                lines.append(name + " -> " + symbolic)
            }
        }
        lines.sort()
        var head: OpaquePointer?
        if git_reference_lookup(&head, handle, "HEAD") == 0 {
            if let target = git_reference_symbolic_target(head) {
                lines.append("HEAD -> " + String(cString: target))
            } else if let target = git_reference_target(head) {
                lines.append("HEAD " + ObjectID(target.pointee).hex)
            }
            git_reference_free(head)
        }
        var st = stat()
        if stat(gitDirectory + "index", &st) == 0 {
            lines.append("index \(st.st_ino) \(st.st_size) \(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)")
        }
        return lines.joined(separator: "\n")
    }
}

private func hexByte(_ value: Int) -> String {
    let digits = Array("0123456789abcdef")
    return String([digits[value >> 4], digits[value & 15]])
}
