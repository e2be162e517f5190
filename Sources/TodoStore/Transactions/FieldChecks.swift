import TodoCore

/// The field rules (`FieldRules`) as the store applies them at the door of every transaction
/// that writes what a person typed: `add`, `edit` and a device's change (`DeviceApply`); an
/// import checks its file with the same rules (`TaskImport`). A front end may check first, to
/// word a refusal in its own terms, but cannot skip these.
enum FieldChecks {
    /// `value` as `rule` keeps it, else the store's refusal naming the field.
    static func checked(_ field: StoreError.RuledField, _ value: String, _ rule: (String) -> Result<String, FieldRules.Problem>) throws(StoreError) -> String {
        switch rule(value) {
        case .success(let kept): return kept
        case .failure(let problem): throw StoreError.fieldRefused(field: field, value: value, problem: problem)
        }
    }

    /// `new` with every field `FieldRules` rules as the rules keep it (trimmed, a tag without
    /// its `+`); the first value they refuse is `fieldRefused`.
    static func ruled(_ new: NewTask) throws(StoreError) -> NewTask {
        var new = new
        new.title = try checked(.title, new.title, FieldRules.title)
        new.notes = try checked(.notes, new.notes, FieldRules.notes)
        if let a = new.assignee { new.assignee = try checked(.assignee, a, FieldRules.name) }
        new.tags = try ruled(new.tags, .tag, FieldRules.tag)
        new.items = try ruled(new.items, .item, FieldRules.item)
        return new
    }

    /// `edit` with every value it sets held to `FieldRules`, as `ruled(_: NewTask)`. Tags and
    /// items it removes, checks or unchecks are names of what is there, not values to store.
    static func ruled(_ edit: TaskEdit) throws(StoreError) -> TaskEdit {
        var edit = edit
        if let t = edit.title { edit.title = try checked(.title, t, FieldRules.title) }
        if let n = edit.notes { edit.notes = try checked(.notes, n, FieldRules.notes) }
        if case .set(let a)? = edit.assignee { edit.assignee = .set(try checked(.assignee, a, FieldRules.name)) }
        edit.addTags = try ruled(edit.addTags, .tag, FieldRules.tag)
        edit.addItems = try ruled(edit.addItems, .item, FieldRules.item)
        return edit
    }

    private static func ruled(
        _ values: [String], _ field: StoreError.RuledField, _ rule: (String) -> Result<String, FieldRules.Problem>
    ) throws(StoreError) -> [String] {
        var kept: [String] = []
        for value in values { kept.append(try checked(field, value, rule)) }
        return kept
    }
}
