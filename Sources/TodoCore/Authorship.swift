/// Who made a write, and when: what a field's stamp says, for showing to a person.
public struct Authorship: Hashable, Sendable {
    /// The member named in the stamp (empty when the writer gave no name).
    public let member: String
    /// Milliseconds since the epoch, by the writer's clock (within the stamps' bounds).
    public let millis: Int64

    public init(member: String, millis: Int64) {
        self.member = member
        self.millis = millis
    }

    public init(_ stamp: FieldStamp) {
        self.init(member: stamp.member, millis: stamp.stamp.wall)
    }
}

extension Task {
    /// Who completed the task and when (the write of its `status`); nil unless it is done.
    public var completion: Authorship? {
        status == .done ? stamps["status"].map(Authorship.init) : nil
    }

    /// Who deleted the task and when (the write of `deleted`); nil unless it is deleted.
    public var deletion: Authorship? {
        deleted ? stamps["deleted"].map(Authorship.init) : nil
    }
}
