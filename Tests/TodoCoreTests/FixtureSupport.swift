import Foundation
import TestKit

@testable import TodoCore

/// One folder of `fixtures/merge/`, laid out as docs/MERGE.md describes.
struct MergeFixture: Sendable, CustomStringConvertible {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("fixtures/merge")

    /// Every case folder, sorted by name.
    static func all() -> [MergeFixture] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return names.sorted().map(MergeFixture.init).filter { $0.isDirectory }
    }

    let name: String
    var description: String { name }

    var folder: URL { Self.root.appendingPathComponent(name) }

    var isDirectory: Bool {
        var isDir: ObjCBool = false
        return FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDir) && isDir.boolValue
    }

    /// The bytes of one file of the case, nil when it is absent.
    func file(_ name: String) -> [UInt8]? {
        (try? Data(contentsOf: folder.appendingPathComponent(name))).map { [UInt8]($0) }
    }

    var base: [UInt8]? { file("base.json") }
    var ours: [UInt8]? { file("ours.json") }
    var theirs: [UInt8]? { file("theirs.json") }
    /// Absent when the merge must fail.
    var expected: [UInt8]? { file("expected.json") }
    var expectedConflicts: [UInt8]? { file("expected-conflicts.json") }
    var readme: [UInt8]? { file("README") }
}

/// The seed of a property-test run: `TODO_PROPERTY_SEED` (decimal or 0x-hex) when set, else
/// random. Each case derives its own generator from the run seed and its index.
enum PropertySeed {
    static let run: UInt64 = {
        if let text = ProcessInfo.processInfo.environment["TODO_PROPERTY_SEED"] {
            let parsed = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
            if let parsed { return parsed }
        }
        return UInt64.random(in: .min ... .max)
    }()

    static func generator(case index: Int, salt: UInt64) -> SplitMix64 {
        var mixer = SplitMix64(seed: (run ^ salt) &+ UInt64(index) &* 0x2545_f491_4f6c_dd1d)
        return SplitMix64(seed: mixer.next())
    }

    static func describe(case index: Int) -> String {
        "TODO_PROPERTY_SEED=\(run), case \(index)"
    }
}
