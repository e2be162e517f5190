import Glibc
import TodoServe

// `todo-serve deliver-reminder`: one network delivery for `todo remind` (ReminderHelper).
if CommandLine.arguments.count == 2 && CommandLine.arguments[1] == "deliver-reminder" {
    exit(await ReminderHelper.run())
}
await ServeMain.run()
