// Stand-in until the keys branch lands (removed at its merge).
import Glibc
public import Age
import GitKit
import TodoCore
import FileKit

public struct MemberKeys: Sendable, Equatable {
    public var name: String
    public var recipients: [String]
}

public struct KeyRoster: Sendable, Equatable {
    public var members: [MemberKeys] = []
    public var recovery: String?
    public var recipients: [String] = []
}

extension Snapshot {
    func keyRoster() -> KeyRoster {
        guard let s = settings() else { return KeyRoster() }
        var set: Set<String> = []
        var rec: String?
        for (k, v) in s.extra {
            if k.hasPrefix("member:key@"), case .string("granted") = v {
                let rest = k.dropFirst("member:key@".count)
                if let colon = rest.firstIndex(of: ":") { set.insert(String(rest[..<colon])) }
            }
            if k == "recovery", case .string(let r) = v { rec = r; set.insert(r) }
        }
        return KeyRoster(members: [], recovery: rec, recipients: set.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
    }
}

public enum DeviceIdentity {
    public static func load(path: String) throws(StoreError) -> AgeIdentity {
        guard let bytes = try? WholeFile.read(path), let id = try? AgeIdentity.parseFile(bytes).first else {
            throw StoreError.invalidHouseholdName(path)
        }
        return id
    }
}

extension DeviceIdentity {
    public static func defaultPath(home: String, configHome: String?) -> String { (configHome ?? home + "/.config") + "/todo/identity" }
}

extension Household {
    public func keyRoster() throws(StoreError) -> KeyRoster { try snapshot().keyRoster() }
    public func grantKey(_ recipient: String, to name: String) throws(StoreError) -> String {
        _ = try writeSettings(message: "member: key for \(name)") { (task: inout Task, stamp: FieldStamp) throws -> Bool in
            try task.write("member:key@\(recipient):\(name)", .string("granted"), stamp: stamp)
            return true
        }
        return name
    }
    public func setRecoveryRecipient(_ recipient: String) throws(StoreError) {
        _ = try writeSettings(message: "member: recovery key") { (task: inout Task, stamp: FieldStamp) throws -> Bool in
            try task.write("recovery", .string(recipient), stamp: stamp)
            return true
        }
    }
}

extension DeviceIdentity {
    public static func loadOrCreate(path: String, now: Int64) throws(StoreError) -> (AgeIdentity, created: Bool) {
        if let id = try? load(path: path) { return (id, false) }
        let id = AgeIdentity.generate()
        let dir = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        _ = try? makeDirectories(dir)
        _ = try? WholeFile.write(path, id.identityFile(created: now), mode: 0o600)
        return (id, true)
    }
}
