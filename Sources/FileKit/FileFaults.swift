import Synchronization
package import SystemPackage

/// Test-only: makes a call of the file layer fail as if the system had returned an errno,
/// so that tests can reach every failure path without root tricks. Each fault applies to paths
/// under one folder only (tests run in parallel in one process), fires once, on the `nth`
/// matching call, and is then gone. Nothing in the product arms it.
package enum FileFaults {
    struct Fault {
        let operation: FileError.Operation
        let under: String
        var countdown: Int
        let errno: Errno
    }

    static let armed = Mutex<[Fault]>([])

    /// The `nth` (from 1) call of `operation` on a path under `folder` fails with `errno`.
    package static func inject(_ operation: FileError.Operation, under folder: String, nth: Int = 1, errno: Errno) {
        armed.withLock { $0.append(Fault(operation: operation, under: folder.hasSuffix("/") ? folder : folder + "/", countdown: nth, errno: errno)) }
    }

    /// Removes the faults under `folder` that have not fired.
    package static func clear(under folder: String) {
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        armed.withLock { $0.removeAll { $0.under == prefix } }
    }

    /// Throws the fault armed for this call, if any.
    static func check(_ operation: FileError.Operation, _ path: String) throws(FileError) {
        let hit: Errno? = armed.withLock { faults in
            guard !faults.isEmpty else { return nil }
            let target = path + "/"
            for i in faults.indices where faults[i].operation == operation && target.hasPrefix(faults[i].under) {
                faults[i].countdown -= 1
                if faults[i].countdown == 0 { return faults.remove(at: i).errno }
            }
            return nil
        }
        if let hit { throw FileError(operation, path: path, errno: hit) }
    }
}
