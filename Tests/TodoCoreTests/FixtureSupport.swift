import Foundation

// Every file of this target sees the test kit (the property seed, the fixtures).
@_exported import TestKit

@testable import TodoCore

/// One folder of `fixtures/merge/`, laid out as docs/MERGE.md describes.
struct MergeFixture: Sendable, CustomStringConvertible {
    static let root = URL(fileURLWithPath: fixture("merge"))

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
