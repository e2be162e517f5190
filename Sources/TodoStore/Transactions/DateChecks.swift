import TodoCore

/// The door every date a change writes passes (docs/FORMAT.md, "Dates"): a date outside
/// `DateBounds` is refused with `StoreError.dateOutOfRange` before anything is written, so no
/// front end can store one. Merges and syncs are not changes of this kind: they keep what the
/// format allows.
extension Household {
    /// Refuses `date` when it lies outside `DateBounds`; `field` names what would hold it.
    static func mustBeInBounds(_ date: CivilDate?, field: String) throws(StoreError) {
        if let date, !DateBounds.contains(date) { throw .dateOutOfRange(field: field, date: date) }
    }

    /// Refuses a change that wrote into `after` a date outside `DateBounds` that `before` did
    /// not hold (a date already stored outside them stays as it is).
    static func mustHoldDatesInBounds(_ after: Task, before: Task?) throws(StoreError) {
        if let (field, date) = DateBounds.firstNewDateOutside(after, before: before) {
            throw .dateOutOfRange(field: field, date: date)
        }
    }
}
