import TodoCore
import TodoStore

/// The sentences the pages show for refused input and store failures.
/// Switch-over: when `TodoWording` (branch serve-store) is merged, the store-failure and
/// date sentences come from there, so a page and `todo` say the same thing.
enum ServeWording {
    static func field(_ name: String, _ problem: FieldRules.Problem) -> String {
        switch (name, problem) {
        case ("title", .empty): return "The title is empty. Give the task a title."
        case (_, .empty): return "This is empty."
        case (_, .tooLong(let limit)): return "This is longer than \(limit) characters."
        case ("tags", .invalid): return "A tag is 1 to \(FieldRules.maxTag) characters without spaces; separate tags with spaces."
        case (_, .invalid): return "This has characters that cannot be shown."
        }
    }

    static func date(_ input: String) -> String {
        "\"\(input)\" is not a date I understand. Use YYYY-MM-DD, today, tomorrow, a weekday (friday, next mon), eod, eow, eom, 15th, +3d, +2w, +1m or +1y, optionally with a time (\"friday 18:00\"), or a time alone (18:00)."
    }

    /// A store failure as a page: a status, a heading and what to do.
    static func failure(_ error: StoreError) -> (status: Int, title: String, text: String) {
        switch error {
        case .taskNotFound, .ambiguousID:
            return (404, "No such task", "This task is not in the household (it may have been removed). Go back to the list.")
        case .itemNotFound:
            return (404, "No such item", "This checklist item is not on the task any more. Reload the page.")
        case .handEdits:
            return (
                409, "A task file was changed by hand",
                "A task file in the household was changed outside todo, so nothing was saved. The owner of the server should run `todo status` and `todo doctor` there."
            )
        case .diskFull:
            return (507, "The server's disk is full", "Nothing was saved. The owner of the server should free some space, then try again.")
        case .locked:
            return (503, "The household is busy", "Another todo command is working on the household. Nothing was saved; try again in a moment.")
        case .notAnOccurrence, .notYetDue:
            return (409, "Not due", "That date is not one of this chore's occurrences now. Reload the page.")
        case .notAChore:
            return (409, "Not a chore", "Only chores can be skipped.")
        case .householdNotFound, .notAHousehold, .invalidHouseholdName:
            return (503, "The household is gone", "The server cannot open its household. The owner should check it with `todo status`.")
        case .notWritable:
            return (507, "The household cannot be written", "Nothing was saved. The owner of the server should check the household folder's permissions.")
        default:
            return (500, "Something went wrong", "Nothing was saved. The owner of the server can look at `todo doctor` for the cause.")
        }
    }

    /// The first line a failed background sync leaves in `sync-state`.
    /// Switch-over: `SyncOptions.describe` from TodoWording once merged.
    static func sync(_ error: SyncError) -> String {
        "The sync failed (\(error.code)). The owner of the server can run `todo sync` there to see why."
    }
}
