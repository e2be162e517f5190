import Glibc
import TodoCLI

// A peer that hangs up (a git server's socket, a pager or `head` on stdout) must show up as a
// failed write, never as a silent death: ignored before libgit2 starts. Child processes get
// the default back (see runProgram).
signal(SIGPIPE, SIG_IGN)
TodoCLI.main()
