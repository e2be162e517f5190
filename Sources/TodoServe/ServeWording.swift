import TodoCore
import TodoStore
import TodoWording

/// What a page says for a store failure or a sync. Refused input is worded by
/// `TodoWording.FormInput` (the facts the CLI states too); a store failure's page is worded
/// here, shorter than `Worded`'s facts (docs/THREAT-MODEL.md, "errors telling too much"): what
/// happened, and what the member can do or whom to ask. A page names no command, flag, manual
/// section or path on the server (docs/ARCHITECTURE.md, "Words"; `PageWordingTests`).
/// `askOwner` is the page's one way of saying "someone else must act".
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
                "A task file in the household was changed outside todo, so nothing was saved. " + askOwner
            )
        case .diskFull:
            return (507, "The server's disk is full", "Nothing was saved. Ask whoever runs the household's server to free some space, then try again.")
        case .locked:
            return (503, "The household is busy", "Another todo command is working on the household. Nothing was saved; try again in a moment.")
        case .notAnOccurrence, .notYetDue:
            return (409, "Not due", "That date is not one of this chore's occurrences now. Reload the page.")
        case .notAChore:
            return (409, "Not a chore", "Only chores can be skipped.")
        case .dateOutOfRange:
            return (422, "Date out of range", Worded(error).fact)
        case .fieldRefused:
            return (422, "Not saved", Worded(error).fact)
        case .householdNotFound, .notAHousehold, .invalidHouseholdName:
            return (503, "The household is gone", "The server cannot open its household. " + askOwner)
        case .memberLeft:
            // The store refused a change for a member who has left: the sign-in page's words.
            let (title, text) = Pages.words(PageError(status: 401))
            return (401, title, text)
        case .notWritable:
            return (507, "The household cannot be written", "Nothing was saved. " + askOwner)
        default:
            return (500, "Something went wrong", "Nothing was saved. " + askOwner)
        }
    }

    /// Whom to ask when the member cannot act.
    static let askOwner = "Ask whoever runs the household's server to look at it."

    /// A failed sync's fact, as every front end records it (`SyncOptions.describe`), so
    /// `sync-state` reads the same whichever front end ran it, and names no command or path.
    static func sync(_ error: SyncError) -> String { SyncMessages.describe(error) }

    /// What the member can do about the last sync's failure, by its class (`sync-state` keeps
    /// the fact and `SyncError.Class`'s raw value).
    static func syncAdvice(errorClass: String?) -> String {
        switch errorClass.flatMap(SyncError.Class.init(rawValue:)) {
        case .transient: "Nothing was lost: the sync is tried again later, or now with \"Sync now\"."
        case .local: "Nothing was lost. " + askOwner
        case .authentication, .configuration, .data, nil: askOwner
        }
    }
}
