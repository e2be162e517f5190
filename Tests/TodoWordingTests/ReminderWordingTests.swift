import Testing
import TodoCore
import TodoStore
import TodoWording
import WordingSamples

/// Why a reminder could not be delivered, as the hub tells it: a fact any front end can show
/// (no command, flag or path), for every delivery problem.
@Suite(.timeLimit(.minutes(1))) struct ReminderWordingTests {
    static let problems: [DeliveryProblem] = [
        .sendmailFailed(program: "/usr/sbin/sendmail"), .loginInClear, .smtpClosed(host: "mail"), .notSMTP(host: "mail"),
        .smtpAnswer(host: "mail", step: .recipient("kim@example.org"), code: 550, said: "550 no such user"),
        .noAuthPlain(host: "mail"), .noStartTLS(host: "mail"), .notHTTPURL(url: "ftp://x"),
        .httpAnswer(host: "push", status: 503, said: "HTTP/1.1 503 Busy"), .addressNotFound(host: "push"),
        .cannotConnect(host: "push", port: 80, errno: .connectionRefused), .answerTimedOut, .connectionBroke(nil),
        .lineTooLong, .tls(host: "mail", said: "CERTIFICATE_VERIFY_FAILED"), .noNetworkHelper(program: "todo-serve"),
        .helperFailed(program: "todo-serve"), .noEmail(member: "Kim"), .noPostURL(member: "Kim"),
    ]

    @Test func everyDeliveryProblemIsAFactAnyFrontEndCanShow() {
        for p in Self.problems {
            for f in [DeliveryFailure.transient(p), .refused(p)] {
                let text = ReminderWording.reason(f)
                #expect(!text.isEmpty && FrontEndText.problems(in: text).isEmpty, "\(f): \(FrontEndText.problems(in: text)) \(text)")
            }
        }
    }
}
