import Glibc
import RemindNet
import TodoServe

// `todo-serve deliver-reminder`: one network delivery for `todo remind` (RemindNet).
if CommandLine.arguments.count == 2 && CommandLine.arguments[1] == "deliver-reminder" {
    exit(await NetworkSender.runHelper())
}
await ServeMain.run()
