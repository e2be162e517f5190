import Hummingbird
import NIOCore

/// A form body (`application/x-www-form-urlencoded`): first value of each name.
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
        return parse(String(buffer: buffer))
    }

    static func parse(_ text: String) -> Form {
        var form = Form()
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = percentDecoded(parts[0]) else { continue }
            let value = parts.count > 1 ? percentDecoded(parts[1]) ?? "" : ""
            if form.fields[name] == nil { form.fields[name] = value }
        }
        return form
    }

    /// `+` as space, `%XX` as a byte; nil when the bytes are not UTF-8 or an escape is broken.
    static func percentDecoded(_ s: Substring) -> String? {
        var bytes: [UInt8] = []
        var it = Array(s.utf8)[...]
        while let b = it.popFirst() {
            if b == UInt8(ascii: "+") {
                bytes.append(0x20)
            } else if b == UInt8(ascii: "%") {
                guard it.count >= 2, let v = UInt8(String(decoding: it.prefix(2), as: UTF8.self), radix: 16) else { return nil }
                bytes.append(v)
                it = it.dropFirst(2)
            } else {
                bytes.append(b)
            }
        }
        return String(validating: bytes, as: UTF8.self)
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
    /// stays the page's own, and a reload does not show it again).
    static func see(_ path: String, notice: Notice?, site: Site) -> Response {
        var headers: HTTPFields = [.location: path]
        if let notice { headers[.setCookie] = Cookie.notice(notice, path: site.prefix) }
        return Response(status: .seeOther, headers: headers)
    }
}

/// The session cookie (docs/THREAT-MODEL.md, "session theft").
enum Cookie {
    static let name = "todo_session"

    static func set(_ token: String, secure: Bool, path: String) -> String {
        "\(name)=\(token); Path=\(path.isEmpty ? "/" : path); Max-Age=\(400 * 86_400); HttpOnly; SameSite=Lax\(secure ? "; Secure" : "")"
    }

    static let noticeName = "todo_notice"

    /// The notice for the next page: a minute's life, read once (`Pages.notice`).
    static func notice(_ notice: Notice, path: String) -> String {
        "\(noticeName)=\(notice.rawValue); Path=\(path.isEmpty ? "/" : path); Max-Age=60; HttpOnly; SameSite=Lax"
    }

    static func clearNotice(path: String) -> String {
        "\(noticeName)=; Path=\(path.isEmpty ? "/" : path); Max-Age=0; HttpOnly; SameSite=Lax"
    }

    static func clear(secure: Bool, path: String) -> String {
        "\(name)=; Path=\(path.isEmpty ? "/" : path); Max-Age=0; HttpOnly; SameSite=Lax\(secure ? "; Secure" : "")"
    }

    /// The session token in the request's cookies, if any.
    static func token(_ request: Request) -> String? { value(name, in: request) }

    static func value(_ cookie: String, in request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for part in header.split(separator: ";") {
                let kv = part.trimmed()
                if kv.hasPrefix(cookie + "=") { return String(kv.dropFirst(cookie.count + 1)) }
            }
        }
        return nil
    }
}
