import Foundation
import Testing

/// Rules about the project's own source text that the compiler does not check.
@Suite(.timeLimit(.minutes(2))) struct SourceRulesTests {
    /// The repository's top folder, found from this file's place in it.
    static let top = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Every `.swift` file under `folder` (relative to the top), with its text.
    static func swiftFiles(under folder: String) throws -> [(path: String, text: String)] {
        let root = top.appendingPathComponent(folder)
        guard let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else {
            return []
        }
        var files: [(String, String)] = []
        for case let url as URL in walker where url.pathExtension == "swift" {
            let relative = String(url.path.dropFirst(top.path.count + 1))
            files.append((relative, try String(contentsOf: url, encoding: .utf8)))
        }
        return files.sorted { $0.0 < $1.0 }
    }

    /// A suite without a time limit can hang `make test` until CI's own limit ends it.
    @Test func everySuiteHasATimeLimit() throws {
        let files = try Self.swiftFiles(under: "Tests")
        #expect(files.count > 50)
        var suites = 0
        var missing: [String] = []
        for (path, text) in files {
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
            for (number, line) in lines.enumerated()
            where line.drop(while: { $0 == " " }).hasPrefix("@" + "Suite") {
                // The attribute runs to the declaration it decorates.
                var attribute = ""
                for next in lines[number...] {
                    attribute += next + "\n"
                    if ["struct ", "final class ", "enum ", "actor "].contains(where: next.contains) { break }
                }
                suites += 1
                if !attribute.contains(".timeLimit(") { missing.append("\(path):\(number + 1)") }
            }
        }
        #expect(suites > 100)
        #expect(missing.isEmpty, "suites without .timeLimit: \(missing.joined(separator: ", "))")
    }

    /// A `try?` turns a failure into nothing. In every module each one says why nothing is the
    /// right answer there, on its line or in a comment just above (docs/ARCHITECTURE.md,
    /// "Failures are never silently nothing"); every other failure is typed and reported.
    @Test func everyTryQuestionMarkSaysWhy() throws {
        var sites = 0
        var silent: [String] = []
        let modules = try FileManager.default.contentsOfDirectory(atPath: Self.top.appendingPathComponent("Sources").path)
        #expect(modules.contains("TodoCLI") && modules.contains("TodoCore") && modules.contains("FileKit"))
        for folder in modules.sorted().map({ "Sources/" + $0 }) {
            for (path, text) in try Self.swiftFiles(under: folder) {
                let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
                for (number, line) in lines.enumerated() where line.contains(Self.tryQuestionMark) {
                    sites += 1
                    let above = number > 0 ? lines[number - 1].drop(while: { $0 == " " }) : ""
                    if !line.contains("//") && !above.hasPrefix("//") { silent.append("\(path):\(number + 1)") }
                }
            }
        }
        #expect(sites > 20, "the scan found the sources")
        #expect(silent.isEmpty, "try? without a reason: \(silent.joined(separator: ", "))")
    }

    /// The store owns every rule (docs/ARCHITECTURE.md, "The store owns every rule"): no
    /// front end changes a task itself (an `inout Task`, one of Task's writing calls) or names
    /// a stored field, a stamp or an unknown field by a string; they hand the store typed
    /// changes (`TaskEdit`, `DeviceChange`) and word its answer.
    @Test func noFrontEndWritesATask() throws {
        let forbidden: [(String, Regex<AnyRegexOutput>)] = [
            ("an inout Task", try Regex(#"inout\s+Task\b"#)),
            ("a Task writing call", try Regex(#"\.write\(\s*"|\.(setValue|setTag|setItem|setOccurrence|setTurn|setCompletion|setRecurrence|setRotation|setRotationEntry|changeRotation|setAnchor|setAlarm|setScheduleMode|setRotateMode|deviceComplete|deviceUncomplete)\("#)),
            ("a stamp or tag state by name", try Regex(#"\.(stamps|tagStates)\["#)),
            ("an unknown field by name", try Regex(#"\.extra\[\s*""#)),
            ("a stored field's constant", try Regex(#"CalDAVRecord\.field|Task\.(stampedFields|fieldOrder)"#)),
        ]
        var files = 0
        var found: [String] = []
        for folder in ["Sources/TodoServe", "Sources/TodoCLI"] {
            for (path, text) in try Self.swiftFiles(under: folder) {
                files += 1
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let code = line.drop(while: { $0 == " " })
                    if code.hasPrefix("//") { continue }
                    for (what, pattern) in forbidden where line.contains(pattern) {
                        found.append("\(path):\(number + 1) (\(what))")
                    }
                }
            }
        }
        #expect(files > 50, "the scan found the sources")
        #expect(found.isEmpty, "a front end writes a task: \(found.joined(separator: ", "))")
    }

    /// Shared state the compiler checks: at most two types under Sources/ opt out of the
    /// compiler's Sendable checking (`@unchecked Sendable`, `nonisolated(unsafe)`), each with a
    /// `//` reason on its line; and no module re-exports another (`@_exported import`).
    @Test func atMostTwoUncheckedSendablesEachWithItsReason() throws {
        var unchecked: [String] = []
        var silent: [String] = []
        var exported: [String] = []
        var files = 0
        for folder in try FileManager.default.contentsOfDirectory(atPath: Self.top.appendingPathComponent("Sources").path).sorted() {
            for (path, text) in try Self.swiftFiles(under: "Sources/" + folder) {
                files += 1
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let code = line.drop(while: { $0 == " " })
                    if code.hasPrefix("//") { continue }
                    let before = line.firstRange(of: "//").map { line[..<$0.lowerBound] } ?? line[...]
                    if before.contains("@unchecked Sendable") || before.contains("nonisolated(unsafe)") {
                        unchecked.append("\(path):\(number + 1)")
                        if !line.contains("//") { silent.append("\(path):\(number + 1)") }
                    }
                    if before.contains("@_exported") { exported.append("\(path):\(number + 1)") }
                }
            }
        }
        #expect(files > 100, "the scan found the sources")
        #expect(unchecked.count <= 2, "unchecked: \(unchecked.joined(separator: ", "))")
        #expect(silent.isEmpty, "unchecked without a reason on its line: \(silent.joined(separator: ", "))")
        #expect(exported.isEmpty, "re-exported: \(exported.joined(separator: ", "))")
    }

    /// `try?` as a word: not the end of `entry?` or `retry?`.
    static var tryQuestionMark: Regex<(Substring, Substring)> { /(^|[^A-Za-z0-9_])try\?/ }
}
