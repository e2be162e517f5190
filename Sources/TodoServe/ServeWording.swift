import TodoCore
import TodoStore
import TodoWording

/// What a page says for a store failure. Refused input is worded by `TodoWording.FormInput`
/// (the CLI's sentences); a store failure's page is worded here, because `Worded`'s messages
/// name paths on the server and commands to type there, which a member's phone should not see
/// (docs/THREAT-MODEL.md, "errors telling too much"): the page says what happened and that the
/// owner should look, and the owner finds the CLI's words with `todo status` or `todo doctor`.
enum ServeWording {
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

    /// A failed sync in the words `todo sync` uses (`SyncOptions.describe`), so `sync-state`
    /// reads the same whichever front end ran it.
    static func sync(_ error: SyncError) -> String { SyncMessages.text(error) }
}
