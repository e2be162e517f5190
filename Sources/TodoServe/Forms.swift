import Hummingbird
import NIOCore

/// A form body (`application/x-www-form-urlencoded`), decoded by Hummingbird's
/// `URLEncodedFormDecoder`: each name once, a value of UTF-8 text.
struct Form: Sendable {
    var fields: [String: String] = [:]

    subscript(_ name: String) -> String? { fields[name] }

    /// Reads the body (at most `Guard.maxBody` bytes: past that, 413).
    static func read(_ request: Request) async throws -> Form {
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: Guard.maxBody)
        } catch {
            throw PageError(status: 413)
        }
        return try parse(buffer.readableBytesView)
    }

    /// The fields of a form body; 400 for anything but a flat form of UTF-8 text, which no page
    /// of this site sends: a name given twice (which value a check and a change would each read
    /// must not be a question), a name with brackets (Hummingbird's nested forms), a `%` not
    /// followed by two hex digits, bytes that are not UTF-8, raw or escaped. Hummingbird decodes
    /// escaped ones as U+FFFD, so a field holding U+FFFD is refused too; a name without `=` is
    /// left out. `+` is a space.
    static func parse(_ body: some Collection<UInt8>) throws(PageError) -> Form {
        guard let text = String(validating: body, as: UTF8.self) else { throw PageError(status: 400) }
        let fields: [String: String]
        do {
            fields = try URLEncodedFormDecoder().decode([String: String].self, from: text)
        } catch {
            throw PageError(status: 400)
        }
        let replacement: Unicode.Scalar = "\u{FFFD}"
        if fields.contains(where: { $0.key.unicodeScalars.contains(replacement) || $0.value.unicodeScalars.contains(replacement) }) {
            throw PageError(status: 400)
        }
        return Form(fields: fields)
    }
}

/// Percent-encodes everything but unreserved characters: for a value put in a URL.
func percentEncoded(_ s: String) -> String {
    var out = ""
    for b in s.utf8 {
        let c = Character(Unicode.Scalar(b))
        if (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || "-._~".utf8.contains(b) {
            out.append(c)
        } else {
            let h = String(b, radix: 16, uppercase: true)
            out += "%" + (h.count == 1 ? "0" : "") + h
        }
    }
    return out
}

/// Notices shown after a POST: a code in the `todo_notice` cookie, never text from the request.
enum Notice: String, CaseIterable {
    case done, alreadyDone = "already-done", alsoDone = "also-done", skipped, alreadySkipped = "already-skipped"
    case checked, unchecked, unchanged, itemAdded = "item-added", itemKnown = "item-known", added, addedBefore = "added-before"
    case synced, syncSkipped = "sync-skipped", syncFailed = "sync-failed", signedIn = "signed-in", signedOut = "signed-out"
    case seen, feedMade = "feed-made"
    case zoneSet = "zone-set"
    case undone, alreadyUndone = "already-undone", undoRefused = "undo-refused", reopened, alreadyOpen = "already-open"

    var text: String {
        switch self {
        case .done: "Done."
        case .alreadyDone: "Already done: nothing changed."
        case .alsoDone: "Done. Someone else had done it too; you both have the credit."
        case .skipped: "Skipped."
        case .alreadySkipped: "Already skipped: nothing changed."
        case .checked: "Checked."
        case .unchecked: "Unchecked."
        case .unchanged: "Nothing changed: it was already so."
        case .itemAdded: "Item added."
        case .itemKnown: "That item is already on the list."
        case .added: "Task added."
        case .addedBefore: "This task was added already: nothing changed."
        case .synced: "Synced."
        case .syncSkipped: "Another sync was running; this one did nothing."
        case .syncFailed: "The sync failed; see below."
        case .signedIn: "Signed in."
        case .signedOut: "Signed out."
        case .seen: "Marked as seen."
        case .zoneSet: "The household's time zone is set."
        case .undone: "Undone."
        case .alreadyUndone: "Already undone: nothing changed."
        case .undoRefused: "Not undone: someone changed it since. Nothing was changed."
        case .reopened: "Reopened."
        case .alreadyOpen: "Already open: nothing changed."
        case .feedMade: "New feed address made: the old one no longer works."
        }
    }
}

enum Redirect {
    /// The page a form came back to: its hidden `back` if it is a path of this site (no scheme,
    /// no `//`, only URL characters), else `fallback`.
    static func back(_ form: Form, site: Site, fallback: String) -> String {
        guard let back = form["back"], back.hasPrefix(site.prefix + "/"), !back.hasPrefix("//"), !back.contains("\\"),
            back.utf8.count < 1024,
            back.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F })
        else { return fallback }
        return back
    }

    /// 303 to `path`, the notice for the next page in a short-lived cookie (so the address
    /// stays the page's own, and a reload does not show it again); with `undo`, the notice
    /// offers to take back that commit of that task (`POST /undo`).
    static func see(_ path: String, notice: Notice?, site: Site, undo: Undoable? = nil) -> Response {
        var headers: HTTPFields = [.location: path]
        if let notice { headers[.setCookie] = Cookie.notice(notice, undo: undo, path: site.prefix) }
        return Response(status: .seeOther, headers: headers)
    }
}

/// A change the notice after it offers to take back: the task and the commit, in hex.
struct Undoable: Equatable {
    let task: String
    let commit: String

    /// From a notice cookie's value or a form: a 32-hex task id and a 40- or 64-hex commit.
    init?(task: String, commit: String) {
        guard task.utf8.count == 32, task.utf8.allSatisfy(isLowerHex), [40, 64].contains(commit.utf8.count),
            commit.utf8.allSatisfy(isLowerHex)
        else { return nil }
        self.task = task
        self.commit = commit
    }
}

/// The session cookie (docs/THREAT-MODEL.md, "session theft").
enum Cookie {
    static let name = "todo_session"

    static func set(_ token: String, secure: Bool, path: String) -> String {
        "\(name)=\(token); Path=\(path.isEmpty ? "/" : path); Max-Age=\(400 * 86_400); HttpOnly; SameSite=Lax\(secure ? "; Secure" : "")"
    }

    static let noticeName = "todo_notice"

    /// The notice for the next page: a minute's life, read once (`Pages.notice`); its value is
    /// the notice's code, then `~task~commit` when it offers an Undo.
    static func notice(_ notice: Notice, undo: Undoable? = nil, path: String) -> String {
        "\(noticeName)=\(notice.rawValue)\(undo.map { "~\($0.task)~\($0.commit)" } ?? ""); Path=\(path.isEmpty ? "/" : path); Max-Age=60; HttpOnly; SameSite=Lax"
    }

    static func clearNotice(path: String) -> String {
        "\(noticeName)=; Path=\(path.isEmpty ? "/" : path); Max-Age=0; HttpOnly; SameSite=Lax"
    }

    static func clear(secure: Bool, path: String) -> String {
        "\(name)=; Path=\(path.isEmpty ? "/" : path); Max-Age=0; HttpOnly; SameSite=Lax\(secure ? "; Secure" : "")"
    }

    /// The session token in the request's cookies, if any.
    static func token(_ request: Request) -> String? { value(name, in: request) }

    /// The value of the cookie named exactly `cookie` (Hummingbird's `request.cookies`, over
    /// every `Cookie` header in order): the first one when a request carries the name twice, as
    /// a browser sends the cookie of the most specific path first; spaces and tabs around the
    /// value dropped. What the value holds is checked by whoever reads it (`IssuedToken.parse`,
    /// `Notice`), so a forged or oversized one names nothing.
    static func value(_ cookie: String, in request: Request) -> String? {
        request.cookies[cookie]?.value.trimmed()
    }
}
