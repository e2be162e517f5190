# todo: build, test, demo, benchmark and install.
#
#   make demo      install what is missing, build, and walk through a household
#   make test      install what is missing, build and run the whole test suite (TODO_BIN=/usr/bin/todo: against the
#                  installed todo and todo-serve, docs/TESTING.md)
#   make build     debug build (.build/debug/todo)
#   make release   release build (.build-release/release/todo and todo-serve)
#   make release-todo  release build of todo alone (what make demo needs)
#   make old-todo  debug builds of the older releases (OLD_COMMIT, PREVIOUS_COMMIT) into COMPAT_CACHE
#                  (~/.cache/todo/build-at), for the compatibility tests; kept and reused by every clone
#   make install   release build of todo and todo-serve into $(DESTDIR)$(PREFIX)/bin, man page into .../share/man/man1,
#                  bash, zsh and fish completions into .../share/{bash-completion,zsh,fish}
#   make bench     release build, then the benchmark table (BENCH_RUNS, BENCH_OUT)
#   make fuzz      build the libFuzzer targets of GitFormats and AgeFormat (.build/fuzz), replay their corpus, run each
#                  for FUZZ_SECONDS (default 30); fails on any crash, leak or timeout (docs/TESTING.md)
#   make dist      from the commit checked out: release builds of todo and todo-serve (in a fixed folder,
#                  under a lock), packaged into dist/ as todo_<version>_<arch>.deb and
#                  todo-<version>-linux-<arch>.tar.gz with their .sha256 (docs/INSTALL.md);
#                  DIST_BINARIES=folder packages the todo and todo-serve there instead of building,
#                  DIST_VERSION=x.y.z sets the version
#   make test-dist as root: installs dist/'s package and tarball in a clean Debian 12 (debootstrap, kept
#                  in ~/.cache/todo/test-dist) and uses them there as a member would (docs/TESTING.md)
#   make dist-repro  make dist twice, the second from another clone with an empty build folder, and
#                  compares the two packages byte for byte (docs/TESTING.md, "Packages")
#   make clean     remove the build directories (.build-compat too) and bench-results.md (COMPAT_CACHE stays)

SWIFT ?= swift
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(DESTDIR)$(PREFIX)/bin
MAN1DIR = $(DESTDIR)$(PREFIX)/share/man/man1
BASHCOMPDIR = $(DESTDIR)$(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR = $(DESTDIR)$(PREFIX)/share/zsh/site-functions
FISHCOMPDIR = $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
INSTALL ?= install

# Release builds get their own scratch directory, so they never wait on or disturb the debug
# build in .build. The Swift runtime is linked statically: no libswift*.so to ship, and a
# quicker start (about 6 ms instead of 10 ms for `todo --version`).
RELEASE_SCRATCH ?= .build-release
RELEASE_FLAGS = -c release --product todo --scratch-path $(RELEASE_SCRATCH) -Xswiftc -static-stdlib
RELEASE_BIN = $(RELEASE_SCRATCH)/release/todo
# The web front end (docs/SERVE.md): a product of its own, so nothing of it is linked into todo.
SERVE_FLAGS = -c release --product todo-serve --scratch-path $(RELEASE_SCRATCH) -Xswiftc -static-stdlib
SERVE_BIN = $(RELEASE_SCRATCH)/release/todo-serve

# The web page's tests beyond swift test: a real browser (scripts/browser-test.py, Chromium and
# selenium from scripts/deps.sh --test) and the server, the CLI and cron changing one household
# at once (scripts/serve-convergence.py), both against the debug build, or against TODO_BIN and
# the todo-serve beside it (`TODO_BIN=/usr/bin/todo make test`: the installed programs; the
# tests that need a debug build's test hooks are skipped, docs/TESTING.md).
DEBUG_DIR = .build/debug
TEST_TODO = $(or $(TODO_BIN),$(DEBUG_DIR)/todo)
TEST_SERVE = $(dir $(TEST_TODO))todo-serve
SCREENS ?= .build/screens

# The older releases the compatibility tests run beside this one, built once from this
# repository's history (debug, `todo` alone) and kept outside the clone, in COMPAT_CACHE, so a
# fresh clone of the same history reuses them. OlderVersionTests runs OLD_COMMIT, the last
# release before `completions`, `schedule` and `rotate` (docs/FORMAT.md, "Older versions");
# OlderVersionRosterTests runs PREVIOUS_COMMIT too, the release before the roster. `make test`
# passes them as TODO_OLD_BINARY and TODO_PREVIOUS_BINARY.
COMPAT_CACHE ?= $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/todo/build-at
OLD_COMMIT ?= fb9737e
OLD_DIR = $(COMPAT_CACHE)/$(OLD_COMMIT)
OLD_BIN = $(OLD_DIR)/todo
PREVIOUS_COMMIT ?= c80d975
PREVIOUS_DIR = $(COMPAT_CACHE)/$(PREVIOUS_COMMIT)
PREVIOUS_BIN = $(PREVIOUS_DIR)/todo

# Test processes at once (scripts/run-tests.py): the Swift suites are shared between them, and
# the browser test and the convergence run are two more jobs beside them.
TEST_JOBS ?= 3
TEST_BUNDLE = $(DEBUG_DIR)/todoPackageTests.xctest
# The CalDAV clients the tests drive the server with (python-caldav, vdirsyncer, todoman,
# caldav-server-tester, Radicale), pinned, in a virtual environment scripts/deps.sh --test makes.
CALDAV_VENV = $(or $(XDG_CACHE_HOME),$(HOME)/.cache)/todo/caldav-venv

.PHONY: all deps build release release-todo old-todo test demo bench install uninstall clean fuzz dist test-dist dist-repro

all: build

deps:
	sh scripts/deps.sh

build: deps
	$(SWIFT) build

release: release-todo
	$(SWIFT) build $(SERVE_FLAGS)

# todo alone: what the demo needs (the server's release build takes several minutes more).
release-todo: deps
	$(SWIFT) build $(RELEASE_FLAGS)
	@! grep -a -q -e TODO_MAINTENANCE_STOP_AT -e TODO_ID_SEED "$(RELEASE_BIN)" || \
		{ echo "make: the release todo holds a test hook (docs/TESTING.md)" >&2; exit 1; }

old-todo: deps
	SWIFT="$(SWIFT)" sh scripts/build-at.sh $(OLD_COMMIT) $(OLD_DIR)
	SWIFT="$(SWIFT)" sh scripts/build-at.sh $(PREVIOUS_COMMIT) $(PREVIOUS_DIR)

# The suites run in TEST_JOBS processes of the test bundle, each one test at a time (Swift
# Testing counts a test's time limit from when it is scheduled, so within a process they do not
# queue for the shared threads), beside the browser test and the convergence run; see
# docs/TESTING.md. The older releases are built after this one, so that they resolve their
# dependencies to the versions in Package.resolved.
test: deps
	sh scripts/deps.sh --test
	sh scripts/servers/install.sh
	$(SWIFT) build --build-tests
	SWIFT="$(SWIFT)" sh scripts/build-at.sh $(OLD_COMMIT) $(OLD_DIR) >/dev/null
	SWIFT="$(SWIFT)" sh scripts/build-at.sh $(PREVIOUS_COMMIT) $(PREVIOUS_DIR) >/dev/null
	TODO_OLD_BINARY="$(OLD_BIN)" TODO_PREVIOUS_BINARY="$(PREVIOUS_BIN)" /usr/bin/python3 scripts/run-tests.py \
		--bundle $(TEST_BUNDLE) --jobs $(TEST_JOBS) --logs .build/test-logs \
		--extra browser="/usr/bin/python3 scripts/browser-test.py --todo $(TEST_TODO) --serve $(TEST_SERVE) --screens $(SCREENS)" \
		--extra convergence="/usr/bin/python3 scripts/serve-convergence.py --todo $(TEST_TODO) --serve $(TEST_SERVE)" \
		--extra chaos-encrypted="/usr/bin/python3 scripts/chaos.py --encrypt --seeds 1-2 --ops 100 --todo $(TEST_TODO)" \
		--extra caldav-clients="$(CALDAV_VENV)/bin/python scripts/caldav/clients.py --todo $(TEST_TODO) --serve $(TEST_SERVE) --venv $(CALDAV_VENV)" \
		--extra caldav-tester="$(CALDAV_VENV)/bin/python scripts/caldav/tester.py --todo $(TEST_TODO) --serve $(TEST_SERVE) --venv $(CALDAV_VENV) --out .build/test-logs/caldav-tester.json" \
		--extra caldav-compare="$(CALDAV_VENV)/bin/python scripts/caldav/compare.py --todo $(TEST_TODO) --serve $(TEST_SERVE) --venv $(CALDAV_VENV) --expected scripts/caldav/compare-expected.txt"

demo: release-todo
	TODO_BIN="$(CURDIR)/$(RELEASE_BIN)" bash scripts/demo.sh

# The baseline the "before", "chores" and "roster" sections compare with: BENCH_BASELINE, else
# a release build of the release before the roster (PREVIOUS_COMMIT), made once and kept.
BASELINE_DIR = $(COMPAT_CACHE)/$(PREVIOUS_COMMIT)-release
BENCH_BASELINE ?= $(BASELINE_DIR)/todo

bench: release
	sh scripts/deps.sh --bench
	sh scripts/deps.sh --test
	sh scripts/servers/install.sh
	test -x "$(BENCH_BASELINE)" || BUILD_AT_CONFIG=release SWIFT="$(SWIFT)" sh scripts/build-at.sh $(PREVIOUS_COMMIT) $(BASELINE_DIR) >/dev/null
	BENCH_BASELINE="$(BENCH_BASELINE)" TODO_BIN="$(CURDIR)/$(RELEASE_BIN)" TODO_SERVE_BIN="$(CURDIR)/$(SERVE_BIN)" bash scripts/bench.sh

# Installed stripped (-s): the debug information is most of each file (todo 47 MB → 25 MB,
# todo-serve 161 MB → 86 MB), which a NAS or an SD card has better use for; the symbols the
# interposers rely on are dynamic ones, which strip keeps.
install: release
	$(INSTALL) -d "$(BINDIR)" "$(MAN1DIR)"
	$(INSTALL) -m 755 -s "$(RELEASE_BIN)" "$(BINDIR)/todo"
	$(INSTALL) -m 755 -s "$(SERVE_BIN)" "$(BINDIR)/todo-serve"
	$(INSTALL) -m 644 man/todo.1 "$(MAN1DIR)/todo.1"
	$(INSTALL) -d "$(BASHCOMPDIR)" "$(ZSHCOMPDIR)" "$(FISHCOMPDIR)"
	"$(RELEASE_BIN)" --generate-completion-script bash > "$(BASHCOMPDIR)/todo"
	"$(RELEASE_BIN)" --generate-completion-script zsh > "$(ZSHCOMPDIR)/_todo"
	"$(RELEASE_BIN)" --generate-completion-script fish > "$(FISHCOMPDIR)/todo.fish"

uninstall:
	rm -f "$(BINDIR)/todo" "$(BINDIR)/todo-serve" "$(MAN1DIR)/todo.1" "$(BASHCOMPDIR)/todo" "$(ZSHCOMPDIR)/_todo" "$(FISHCOMPDIR)/todo.fish"

# Packages (docs/INSTALL.md; docs/TESTING.md, "Packages"). DIST_STARTED_IN is the folder whose
# path must appear in neither program; DIST_BINARIES, DIST_VERSION, DIST_ROOT, DIST_SCRATCH and
# DIST_RESOLVED pass through the environment (scripts/dist/dist.sh, build.sh).
DIST_OUT ?= dist

dist: deps
	sh scripts/deps.sh --dist
	DIST_OUT="$(DIST_OUT)" DIST_STARTED_IN="$(CURDIR)" SWIFT="$(SWIFT)" sh scripts/dist/dist.sh

test-dist:
	sh scripts/deps.sh --dist
	sh scripts/dist/test-dist.sh "$(DIST_OUT)"

dist-repro: deps
	sh scripts/deps.sh --dist
	SWIFT="$(SWIFT)" sh scripts/dist/repro.sh

# The decoders of git's formats (Sources/GitFormats) and of age's (Sources/AgeFormat, the target
# `age`) under libFuzzer and AddressSanitizer: each module built once, one executable per decoder
# (Tests/Fuzz/<target>.swift), each first replaying its corpus (Tests/Fuzz/corpus/<target>,
# -runs=0), then mutating for FUZZ_SECONDS with leak detection on. New inputs go to .build/fuzz/found/<target>, crashes to .build/fuzz/crash-<target>-*.
FUZZ_SECONDS ?= 30
FUZZ_DIR = .build/fuzz
FUZZ_TARGETS = idx entry tree commit loose index bundle age
FUZZ_FLAGS = -sanitize=fuzzer,address -O -g -parse-as-library
FUZZ_RUN_FLAGS = -timeout=10 -rss_limit_mb=2048 -detect_leaks=1
GITFORMATS_SOURCES = $(wildcard Sources/GitFormats/*.swift)
AGEFORMAT_SOURCES = $(wildcard Sources/AgeFormat/*.swift)

$(FUZZ_DIR)/libGitFormats.a: $(GITFORMATS_SOURCES)
	mkdir -p $(FUZZ_DIR)
	swiftc $(FUZZ_FLAGS) -module-name GitFormats -emit-module -emit-module-path $(FUZZ_DIR)/GitFormats.swiftmodule \
		-emit-library -static -o $@ $(GITFORMATS_SOURCES)

$(FUZZ_DIR)/libAgeFormat.a: $(AGEFORMAT_SOURCES)
	mkdir -p $(FUZZ_DIR)
	swiftc $(FUZZ_FLAGS) -module-name AgeFormat -emit-module -emit-module-path $(FUZZ_DIR)/AgeFormat.swiftmodule \
		-emit-library -static -o $@ $(AGEFORMAT_SOURCES)

$(FUZZ_DIR)/fuzz-age: Tests/Fuzz/age.swift $(FUZZ_DIR)/libAgeFormat.a
	rm -f $@
	swiftc $(FUZZ_FLAGS) -I $(FUZZ_DIR) -L $(FUZZ_DIR) -lAgeFormat $< -o $@ 2>&1 | grep -v "Cannot export local symbol" || true
	test -x $@

$(FUZZ_DIR)/fuzz-%: Tests/Fuzz/%.swift $(FUZZ_DIR)/libGitFormats.a
	rm -f $@
	swiftc $(FUZZ_FLAGS) -I $(FUZZ_DIR) -L $(FUZZ_DIR) -lGitFormats $< -o $@ 2>&1 | grep -v "Cannot export local symbol" || true
	test -x $@

fuzz: $(addprefix $(FUZZ_DIR)/fuzz-,$(FUZZ_TARGETS))
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_DIR)/found/$$t Tests/Fuzz/corpus/$$t; \
		echo "fuzz $$t: replaying Tests/Fuzz/corpus/$$t"; \
		$(FUZZ_DIR)/fuzz-$$t $(FUZZ_RUN_FLAGS) -runs=0 -artifact_prefix=$(FUZZ_DIR)/crash-$$t- Tests/Fuzz/corpus/$$t \
			> $(FUZZ_DIR)/$$t-replay.log 2>&1 || { tail -40 $(FUZZ_DIR)/$$t-replay.log; exit 1; }; \
		echo "fuzz $$t: $(FUZZ_SECONDS) s"; \
		$(FUZZ_DIR)/fuzz-$$t $(FUZZ_RUN_FLAGS) -max_total_time=$(FUZZ_SECONDS) -artifact_prefix=$(FUZZ_DIR)/crash-$$t- \
			$(FUZZ_DIR)/found/$$t Tests/Fuzz/corpus/$$t > $(FUZZ_DIR)/$$t.log 2>&1 || { tail -40 $(FUZZ_DIR)/$$t.log; exit 1; }; \
		grep -E "^(#[0-9]+: |Done)" $(FUZZ_DIR)/$$t.log | tail -1; \
	done

clean:
	rm -rf .build $(RELEASE_SCRATCH) .build-compat bench-results.md
