import AgeFormat
import Foundation
import Testing

/// The key file's text (docs/ENCRYPTION.md, "The key file"): what `encoded` writes reads back
/// as it was, and every other shape is refused, since anyone who knows a household's
/// recipient can write a `key.age`.
@Suite(.timeLimit(.minutes(1))) struct KeyFileTextTests {
    static let recipients = [[UInt8](repeating: 1, count: 32), [UInt8](repeating: 2, count: 32), [UInt8](repeating: 3, count: 32)]
        .map(AgeKeyText.recipient).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    static let identities = (4...6).map { AgeKeyText.identity([UInt8](repeating: UInt8($0), count: 32)) }

    static func file(epoch: Int) -> KeyFile {
        KeyFile(
            epoch: epoch, recipients: recipients, identities: (0..<epoch).map { identities[$0 % 3] },
            proof: epoch == 1 ? nil : [UInt8](repeating: 0xAB, count: 32))
    }

    @Test(arguments: [1, 2, 5]) func whatIsWrittenReadsBackAsItWas(epoch: Int) throws {
        let file = Self.file(epoch: epoch)
        let read = try #require(KeyFile(file.encoded))
        #expect(read == file)
        #expect(read.encoded == file.encoded)
        #expect(String(decoding: file.encoded, as: UTF8.self).hasSuffix(epoch == 1 ? "\n" : "proof " + String(repeating: "ab", count: 32) + "\n"))
    }

    @Test func everyOtherShapeIsRefused() {
        let good = String(decoding: Self.file(epoch: 2).encoded, as: UTF8.self)
        let one = String(decoding: Self.file(epoch: 1).encoded, as: UTF8.self)
        let r = Self.recipients
        let changed: [(String, String)] = [
            ("no newline at the end", String(good.dropLast())),
            ("another magic", good.replacingFirst("todo-keys 1", "todo-keys 2")),
            ("a leading zero", good.replacingFirst("epoch 2", "epoch 02")),
            ("epoch 0", one.replacingFirst("epoch 1", "epoch 0")),
            ("an epoch of eight digits", good.replacingFirst("epoch 2", "epoch 12345678")),
            ("recipients out of order", good.replacingFirst(r[0], "TMP").replacingFirst(r[1], r[0]).replacingFirst("TMP", r[1])),
            ("a recipient twice", good.replacingFirst(r[1], r[0])),
            ("a recipient in uppercase", good.replacingFirst(r[0], r[0].uppercased())),
            ("an identity numbered wrong", good.replacingFirst("identity 1 ", "identity 3 ")),
            ("an identity missing", good.replacingFirst("identity 1 " + Self.identities[1] + "\n", "")),
            ("an identity in lowercase", good.replacingFirst(Self.identities[0], Self.identities[0].lowercased())),
            ("no proof after epoch 1", good.replacingFirst("proof " + String(repeating: "ab", count: 32) + "\n", "")),
            ("a proof at epoch 1", one + "proof " + String(repeating: "ab", count: 32) + "\n"),
            ("a proof in uppercase", good.replacingFirst(String(repeating: "ab", count: 32), String(repeating: "AB", count: 32))),
            ("a short proof", good.replacingFirst(String(repeating: "ab", count: 32), String(repeating: "ab", count: 31))),
            ("a line after", good + "recipient " + r[0] + "\n"),
            ("an empty line", good + "\n"),
            ("carriage returns", good.replacingFirst("\n", "\r\n")),
            ("no recipient", one.replacingFirst("recipient " + r[0] + "\n", "").replacingFirst("recipient " + r[1] + "\n", "")
                .replacingFirst("recipient " + r[2] + "\n", "")),
        ]
        for (what, text) in changed {
            #expect(text != good && text != one, "\(what): unchanged")
            #expect(KeyFile(Array(text.utf8)) == nil, "\(what) was read")
        }
        #expect(KeyFile([UInt8](repeating: 0x0A, count: KeyFile.maxBytes + 1)) == nil)
        #expect(KeyFile([0xFF, 0x0A]) == nil)
    }
}

extension String {
    fileprivate func replacingFirst(_ old: String, _ new: String) -> String {
        guard let range = range(of: old) else { return self }
        return replacingCharacters(in: range, with: new)
    }
}
