#!/usr/bin/env bash
# A walk through a household with two members, in a temporary directory that is removed at the
# end. Every command is printed before it runs ("alice$ todo add ..."), then its output.
#
# Run by `make demo` with TODO_BIN set to the release build. HOME is left alone; each member
# gets a TODO_HOME and XDG_STATE_HOME of their own inside the temporary directory, and their
# identity comes from --name/--email, so nothing outside that directory is read or written
# (other than git's global configuration, which `git log` reads as usual).
set -euo pipefail

cd "$(dirname "$0")/.."
todo_bin=${TODO_BIN:-$PWD/.build-release/release/todo}
if [ ! -x "$todo_bin" ]; then
    echo "scripts/demo.sh: no todo binary at $todo_bin (run \`make release\`, or set TODO_BIN)" >&2
    exit 1
fi
case "$todo_bin" in /*) ;; *) todo_bin=$PWD/$todo_bin ;; esac

demo=$(mktemp -d "${TMPDIR:-/tmp}/todo-demo.XXXXXX")
trap 'rm -rf "$demo"' EXIT
# `todo` on PATH, so the commands read as a person would type them.
mkdir -p "$demo/bin"
ln -s "$todo_bin" "$demo/bin/todo"
export PATH="$demo/bin:$PATH"
unset TODO_HOUSEHOLD TODO_NOW
export NO_COLOR=1

bold=""
plain=""
if [ -t 1 ]; then
    bold=$(printf '\033[1m')
    plain=$(printf '\033[0m')
fi

# quote ARG: ARG as a person would type it in a shell.
quote() {
    case "$1" in
        "" | *[!A-Za-z0-9_./:@=+,%^-]*)
            local s=${1//\\/\\\\}
            s=${s//\"/\\\"}
            s=${s//\$/\\\$}
            s=${s//\`/\\\`}
            printf '"%s"' "$s"
            ;;
        *) printf '%s' "$1" ;;
    esac
}

# echo_command PROMPT COMMAND ARG...: print the command line as typed at PROMPT.
echo_command() {
    local prompt=$1 line="" arg
    shift
    for arg in "$@"; do line+=" $(quote "$arg")"; done
    printf '%s%s$%s%s\n' "$bold" "$prompt" "$line" "$plain"
}

# show PROMPT COMMAND ARG...: print the command line, then run it. A failing command stops the
# demo (set -e), with its exit status.
show() {
    echo_command "$@"
    shift
    "$@"
}

# The two members: everything they run sees only their own TODO_HOME and XDG_STATE_HOME.
alice() { TODO_HOME="$demo/alice/data" XDG_STATE_HOME="$demo/alice/state" show alice "$@"; }
bob() { TODO_HOME="$demo/bob/data" XDG_STATE_HOME="$demo/bob/state" show bob "$@"; }
# capture VAR MEMBER COMMAND...: like the member's own function, and also keep the output
# (a new task's short id) in VAR.
capture() {
    local var=$1 who=$2 out
    shift 2
    echo_command "$who" "$@"
    out=$(TODO_HOME="$demo/$who/data" XDG_STATE_HOME="$demo/$who/state" "$@")
    printf '%s\n' "$out"
    printf -v "$var" '%s' "$out"
}
say() { printf '\n%s# %s%s\n' "$bold" "$*" "$plain"; }

remote="$demo/family.git"
alice_home="$demo/alice/data/home"
bob_home="$demo/bob/data/home"

say "todo $(todo --version), in $demo (removed at the end)."
say "Alice creates the household, with an empty bare repository as the shared remote."
show alice git init -q --bare -b main "$remote"
alice todo init --name Alice --email alice@example.org --remote "$remote"

say "She adds a few tasks: todo add prints each new task's short id."
capture milk alice todo add "Buy milk" --due tomorrow --tag groceries
capture plumber alice todo add "Call the plumber" --due friday --assign Bob --priority high
capture plants alice todo add "Water the plants" --tag home --note "balcony too"
alice todo add "Pay the electricity bill" --due +3d --assign Alice --tag bills
alice todo list

say "An edit, a task done, one task in full, and the history git keeps."
alice todo edit "$plumber" --due saturday --note "the kitchen sink drips"
alice todo done "$plants"
alice todo list --all
alice todo show "$plumber"
alice todo log -n 3

say "She sends it all to the shared remote."
alice todo sync

say "Bob joins from the same remote."
bob todo clone "$remote" --name Bob --email bob@example.org
bob todo list

say "Before either syncs again, both change the same tasks: the plumber task in different fields, the milk task's title in both."
bob todo edit "$plumber" --assign Alice
bob todo edit "$milk" --title "Buy oat milk"
alice todo edit "$plumber" --priority normal --tag house
alice todo edit "$milk" --title "Buy milk (2 l)" --note "the big bottles"
bob todo status

say "Alice syncs first; Bob's sync merges field by field; Alice's next sync receives the merge."
alice todo sync
bob todo sync
alice todo sync

say "Nothing to resolve by hand: the title Bob lost is in the conflict log, recoverable."
bob todo conflicts
alice todo status
bob todo show "$plumber"
bob todo show "$milk"

say "A chore that rotates, and the people behind it: Sam moves in, Bob is away for a few days, Sam moves out. Today's turn never moves."
capture trash alice todo add "Take out the trash" --every day --rotate Alice,Bob
alice todo member add Sam
alice todo edit "$trash" --rotate Alice,Bob,Sam
alice todo member away Bob --from +2d --until +4d
alice todo show "$trash"
alice todo member leave Sam --to Alice
alice todo show "$trash"
alice todo member
alice todo sync
bob todo sync

say "Both members now hold the same tree, and git shows the history."
show alice git -C "$alice_home" rev-parse "HEAD^{tree}"
show bob git -C "$bob_home" rev-parse "HEAD^{tree}"
show bob git -C "$bob_home" log --oneline --graph
show bob git -C "$bob_home" status

if [ "$(git -C "$alice_home" rev-parse "HEAD^{tree}")" != "$(git -C "$bob_home" rev-parse "HEAD^{tree}")" ]; then
    echo "scripts/demo.sh: the two members' trees differ after syncing" >&2
    exit 1
fi
say "Done; removing $demo."
