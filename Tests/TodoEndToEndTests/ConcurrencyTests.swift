import Foundation
import Testing

/// Several `todo` processes on one household at the same time.
@Suite(.timeLimit(.minutes(20)), .kit) struct ConcurrencyTests {
    @Test func fourWritersAtOnceLoseNothing() throws {
        let sb = try Sandbox(now: nil)
        try sb.initHousehold()
        // Four shells, each adding 15 tasks one after another, all four at once; a fifth lists
        // meanwhile, keeping every listing.
        let writers = try (1...4).map { w in
            try sb.shell(
                """
                i=1
                while [ $i -le 15 ]; do
                  "$TODO" add "worker \(w) task $i" >/dev/null || echo "worker \(w) task $i: exit $?" >&2
                  i=$((i + 1))
                done
                """)
        }
        let reader = try sb.shell(
            """
            i=1
            while [ $i -le 10 ]; do
              "$TODO" list --json > "\(sb.root)/io/listing-$i.json" || echo "list $i: exit $?" >&2
              i=$((i + 1))
            done
            """)
        for r in writers.map({ $0.wait() }) + [reader.wait()] {
            #expect(r.exitCode == 0 && r.stderr.isEmpty, "\(r)")
        }

        let expected = Set((1...4).flatMap { w in (1...15).map { "worker \(w) task \($0)" } })
        // Every listing taken during the writes is whole: valid JSON, no task twice, none invented.
        for i in 1...10 {
            let text = String(decoding: readBytes("\(sb.root)/io/listing-\(i).json") ?? [], as: UTF8.self)
            let titles = try json(text).items.compactMap { $0["title"]?.stringValue }
            #expect(Set(titles).count == titles.count && Set(titles).isSubset(of: expected), "listing \(i): \(text)")
        }

        let tasks = try json(try sb.todo("list", "--json").stdout).items
        #expect(tasks.count == 60)
        #expect(Set(tasks.compactMap { $0["title"]?.stringValue }) == expected)
        // 60 commits on top of init, in one line of history, each adding one file.
        let commits = try sb.commits()
        #expect(commits.count == 61)
        #expect(try sb.git("rev-list", "--min-parents=2", "refs/heads/main").stdout.isEmpty)
        let added = try sb.git("log", "--format=", "--name-status", "refs/heads/main").lines.filter { !$0.isEmpty }
        #expect(added.filter { $0.hasPrefix("A\ttasks/") }.count == 60 && added.count == 61, "\(added.count) file changes")
        let subjects = try sb.git("log", "--format=%s", "refs/heads/main").lines
        #expect(subjects.filter { $0.hasPrefix("add: worker ") }.count == 60)
        try sb.expectClean()
    }
}
