import Glibc
import RemindNet
import TodoStore

/// `todo-serve deliver-reminder` (docs/SERVE.md, "Reminders from the hub"): one network delivery
/// for `todo remind`, its `NetworkDelivery` on standard input and its answer (`DeliveryAnswer`)
/// on standard output. When a server runs for the household on this machine and account (its
/// state folder holds the links' secret and the address it serves), the reminder gets the same
/// Done links the server would give it, so that it is the same reminder whoever sends it.
public enum ReminderHelper {
    /// Exit 0 with an answer, 64 when the input is not a request.
    public static func run() async -> Int32 {
        guard var request = NetworkSender.readRequest() else {
            printError("todo-serve: deliver-reminder reads a reminder from todo remind on its standard input; that was not one.")
            return 64
        }
        if request.message.links.isEmpty, !request.message.items.isEmpty {
            let state = StateFolder.forHousehold(request.message.household, environment: .process)
            if let links = ReminderLinks.existing(state), let base = ReminderLinks.recordedBase(state) {
                links.decorate(&request.message, base: base)
            }
        }
        let answer = DeliveryAnswer.encode(await NetworkSender.deliver(request)) + "\n"
        _ = answer.withCString { write(STDOUT_FILENO, $0, strlen($0)) }
        return 0
    }
}
