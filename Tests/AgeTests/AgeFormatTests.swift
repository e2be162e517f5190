@testable import AgeFormat
import Testing

/// AgeFormat's pieces one by one: bech32 against BIP-173's vectors and age's case rules, the
/// strict base64, the header's encoding and limits, and identity files.
@Suite(.timeLimit(.minutes(1))) struct AgeFormatTests {
    func refusal<T>(_ body: () throws(AgeFormatError) -> T) -> AgeFormatError? {
        do throws(AgeFormatError) {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    // MARK: bech32

    @Test func bip173ValidStringsHaveGoodChecksums() throws {
        for text in [
            "A12UEL5L", "a12uel5l", "an83characterlonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1tt5tgs",
            "abcdef1qpzry9x8gf2tvdw0s3jn54khce6mua7lmqqqxw",
            "11" + String(repeating: "q", count: 82) + "c8247j",
            "split1checkupstagehandshakeupstreamerranterredcaperred2y9e3w", "?1ezyfcl",
        ] {
            #expect(refusal { () throws(AgeFormatError) in try Bech32.decodeGroups(text) } == nil, "\(text)")
        }
    }

    @Test func bip173InvalidStringsAreRefusedWithTheirReason() {
        let cases: [(String, AgeProblem)] = [
            ("\u{20}1nwldj5", .badCharacter), ("\u{7f}1axkwrx", .badCharacter), ("\u{80}1eym55h", .badCharacter),
            ("an84characterslonghumanreadablepartthatcontainsthenumber1andtheexcludedcharactersbio1569pvx", .badSeparator),
            ("pzry9x0s0muk", .badSeparator), ("1pzry9x0s0muk", .badSeparator), ("x1b4n0q5v", .badCharacter),
            ("li1dgmt3", .badSeparator), ("de1lg7wt\u{ff}", .badCharacter), ("A1G7SGD8", .badChecksum),
            ("10a06t8", .badSeparator), ("1qzzfhee", .badSeparator), ("a12UEL5L", .mixedCase),
        ]
        for (text, problem) in cases {
            #expect(refusal { () throws(AgeFormatError) in try Bech32.decode(text) }?.problem == problem, "\(text)")
        }
        #expect(refusal { () throws(AgeFormatError) in try Bech32.decode(String(repeating: "q", count: 5000)) } == .overLimit(.bech32, limit: 4096, at: 4096))
    }

    /// A key pair `age-keygen` made: the identity reads, encodes again to its text, and age's
    /// case rules hold (recipients lowercase, identities uppercase).
    @Test func keysFollowAgesTextAndCase() throws {
        let identity = "AGE-SECRET-KEY-183EKH9E8J9KRA83ZYVUDNQERY2V8K8E2K4JSFUDDVE5ZX3MY0G5S2Z90EV"
        let recipient = "age1mjjx542r0jht68vz5eer4afr4vsydupyay98lugsrlh3murt8awspmzwjm"
        let secret = try AgeKeyText.parseIdentity(identity)
        let publicKey = try AgeKeyText.parseRecipient(recipient)
        #expect(secret.count == 32 && publicKey.count == 32)
        #expect(AgeKeyText.identity(secret) == identity)
        #expect(AgeKeyText.recipient(publicKey) == recipient)
        #expect(refusal { () throws(AgeFormatError) in try AgeKeyText.parseIdentity(identity.lowercased()) } == .invalid(.identity, .wrongKeyType, at: 0))
        #expect(refusal { () throws(AgeFormatError) in try AgeKeyText.parseRecipient(recipient.uppercased()) } == .invalid(.recipient, .wrongKeyType, at: 0))
        #expect(refusal { () throws(AgeFormatError) in try AgeKeyText.parseRecipient(identity) } == .invalid(.recipient, .wrongKeyType, at: 0))
        #expect(refusal { () throws(AgeFormatError) in try AgeKeyText.parseRecipient(Bech32.encode(hrp: "age", data: Array(publicKey.dropLast()))) } == .invalid(.recipient, .wrongLength, at: 4))
        var changed = Array(recipient.utf8)
        changed[10] = changed[10] == UInt8(ascii: "q") ? UInt8(ascii: "p") : UInt8(ascii: "q")
        #expect(refusal { () throws(AgeFormatError) in try AgeKeyText.parseRecipient(String(decoding: changed, as: UTF8.self)) }?.problem == .badChecksum)
    }

    // MARK: base64

    @Test func base64IsStrictAndUnpadded() {
        func decode(_ text: String) -> Result<[UInt8], AgeFormatError> {
            do throws(AgeFormatError) { return .success(try AgeBase64.decode(ArraySlice(text.utf8), part: .stanzaBody)) } catch { return .failure(error) }
        }
        #expect(decode("") == .success([]))
        #expect(decode("AA") == .success([0]))
        #expect(decode("AAE") == .success([0, 1]))
        #expect(decode("/w") == .success([255]))
        #expect(decode("AB") == .failure(.invalid(.stanzaBody, .nonCanonicalBase64, at: 1)))
        #expect(decode("AAF") == .failure(.invalid(.stanzaBody, .nonCanonicalBase64, at: 2)))
        #expect(decode("A") == .failure(.invalid(.stanzaBody, .badBase64Length, at: 0)))
        #expect(decode("AA==") == .failure(.invalid(.stanzaBody, .badBase64Length, at: 2)))
        #expect(decode("A-A") == .failure(.invalid(.stanzaBody, .badCharacter, at: 1)))
        #expect(decode("AA\r") == .failure(.invalid(.stanzaBody, .carriageReturn, at: 2)))
        for count in 0..<70 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let text = AgeBase64.encodeString(bytes)
            #expect(!text.contains("=") && text.utf8.count == (count * 4 + 2) / 3)
            #expect(decode(text) == .success(bytes))
        }
    }

    // MARK: The header

    /// A body is cut into lines of 64 columns and always ends with a shorter line, empty when
    /// the last line is full or the body is empty; the header encoded reads back the same.
    @Test func bodiesWrapAt64ColumnsAndEndShort() throws {
        for size in [0, 1, 47, 48, 49, 95, 96, 97, 200] {
            let stanza = AgeStanza(type: "t", arguments: ["a", "b!"], body: (0..<size).map { UInt8(truncatingIfNeeded: $0) })
            let mac = [UInt8](repeating: 7, count: 32)
            let bytes = AgeHeader.encode([stanza], mac: mac)
            let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            let bodyLines = Array(lines[2..<(lines.count - 2)])
            #expect(lines[1] == "-> t a b!")
            #expect(bodyLines.dropLast().allSatisfy { $0.count == 64 } && bodyLines.last!.count < 64, "\(size)")
            #expect(bodyLines.count == size / 48 + 1, "\(size)")
            let header = try AgeHeader.parse(bytes + [1, 2, 3])
            #expect(header.stanzas == [stanza] && header.mac == mac && header.end == bytes.count)
            #expect(header.macCovered == 0..<(bytes.count - 45))
            #expect(bytes[header.macCovered].suffix(4).elementsEqual("\n---".utf8))
        }
    }

    @Test func damagedHeadersAreRefusedWithWhatAndWhere() {
        let stanza = "-> X25519 TEiF0ypqr+bpvcqXNyCVJpL7OuwPdVwPL7KQEbFDOCc\nhjabGXwSLQ9c3S6Lw2i+S2Tu2fiwQHHslbBN6B41FLE\n"
        let mac = "--- WyJp9F/9FOZh7gJdheq2WIJcwHgYc8NIVh3ddwhrcNg\n"
        let version = "age-encryption.org/v1\n"
        let cases: [(String, AgeFormatError)] = [
            ("", .truncated(.versionLine, at: 0)),
            ("age-encryption.org/v", .truncated(.versionLine, at: 20)),
            ("age-encryption.org/v2\n", .invalid(.versionLine, .notAgeVersion, at: 20)),
            ("age-encryption.org/v1\r\n", .invalid(.versionLine, .carriageReturn, at: 21)),
            ("-----BEGIN AGE ENCRYPTED FILE-----\n", .invalid(.versionLine, .notAgeVersion, at: 0)),
            (version, .truncated(.stanza, at: 22)),
            (version + stanza, .truncated(.stanza, at: 120)),
            (version + stanza + "--- ", .truncated(.macLine, at: 124)),
            (version + "->X25519\n\n" + mac, .invalid(.stanza, .badStanzaStart, at: 22)),
            (version + "-> \n\n" + mac, .invalid(.stanza, .emptyArgument, at: 25)),
            (version + "-> a  b\n\n" + mac, .invalid(.stanza, .emptyArgument, at: 27)),
            (version + "-> a b \n\n" + mac, .invalid(.stanza, .emptyArgument, at: 29)),
            (version + "-> a\tb\n\n" + mac, .invalid(.stanza, .badCharacter, at: 26)),
            (version + "-> a\r\n\n" + mac, .invalid(.stanza, .carriageReturn, at: 26)),
            (version + "-> a\n" + mac, .invalid(.stanzaBody, .bodyNotEnded, at: 27)),
            (version + "-> a\n" + String(repeating: "A", count: 64) + "\n-> b\n\n" + mac, .invalid(.stanzaBody, .bodyNotEnded, at: 92)),
            (version + "-> a\n" + String(repeating: "A", count: 65) + "\n" + mac, .invalid(.stanzaBody, .bodyLineTooLong, at: 91)),
            (version + "-> a\nAA=\n" + mac, .invalid(.stanzaBody, .badBase64Length, at: 29)),
            (version + stanza + "---\n", .invalid(.macLine, .badMACLine, at: 123)),
            (version + stanza + "---  WyJp9F/9FOZh7gJdheq2WIJcwHgYc8NIVh3ddwhrcNg\n", .invalid(.macLine, .badMACLine, at: 124)),
            (version + stanza + "--- WyJp9F/9FOZh7gJdheq2WIJcwHgYc8NIVh3ddwhrcNg \n", .invalid(.macLine, .badMACLine, at: 167)),
            (version + stanza + "--- WyJp9F/9FOZh7gJdheq2WIJcwHgYc8NIVh3ddwhr\n", .invalid(.macLine, .wrongLength, at: 124)),
            (version + stanza + "--- WyJp9F/9FOZh7gJdheq2WIJcwHgYc8NIVh3ddwhrcN\n", .invalid(.macLine, .nonCanonicalBase64, at: 165)),
            (version + stanza + "--- WyJp9F/9FOZh7gJdheq2WIJcwHgYc8NIVh3ddwhrcNh\n", .invalid(.macLine, .nonCanonicalBase64, at: 166)),
            (version + "-> scrypt c2FsdA 10\nAA\n" + stanza + mac, .invalid(.stanza, .scryptNotAlone, at: 22)),
        ]
        for (text, expected) in cases {
            #expect(refusal { () throws(AgeFormatError) in try AgeHeader.parse(Array(text.utf8)) } == expected, "\(text.debugDescription)")
        }
        #expect(refusal { () throws(AgeFormatError) in try AgeFile.parse(Array((version + stanza + mac).utf8) + [UInt8](repeating: 0, count: 15)) } == .truncated(.nonce, at: 183))
    }

    /// What hostile input could make a reader allocate is bounded: stanzas, arguments, line
    /// lengths and body sizes over the limits are refused as such.
    @Test func headerLimitsAreEnforced() {
        let version = "age-encryption.org/v1\n"
        let mac = "--- WyJp9F/9FOZh7gJdheq2WIJcwHgYc8NIVh3ddwhrcNg\n"
        func parse(_ text: String) -> AgeFormatError? { refusal { () throws(AgeFormatError) in try AgeHeader.parse(Array(text.utf8)) } }
        #expect(parse(version + String(repeating: "-> a\n\n", count: 1024) + mac) == nil)
        #expect(parse(version + String(repeating: "-> a\n\n", count: 1025) + mac) == .overLimit(.stanza, limit: 1024, at: 22 + 1024 * 6))
        #expect(parse(version + "->" + String(repeating: " a", count: 32) + "\n\n" + mac) == nil)
        #expect(parse(version + "->" + String(repeating: " a", count: 33) + "\n\n" + mac) == .overLimit(.stanza, limit: 32, at: 22 + 3 + 64))
        #expect(parse(version + "-> " + String(repeating: "a", count: 4093) + "\n\n" + mac) == nil)
        #expect(parse(version + "-> " + String(repeating: "a", count: 4094) + "\n\n" + mac) == .overLimit(.stanza, limit: 4096, at: 22 + 4096))
        let fullLine = String(repeating: "A", count: 64) + "\n"
        #expect(parse(version + "-> a\n" + String(repeating: fullLine, count: 1365) + "AAAA\n" + mac) == nil)
        #expect(parse(version + "-> a\n" + String(repeating: fullLine, count: 1366) + "\n" + mac) == .overLimit(.stanzaBody, limit: 65536, at: 27 + 1365 * 65))
    }

    // MARK: Identity files

    @Test func identityFilesReadAsAgeReadsThem() throws {
        let one = "AGE-SECRET-KEY-183EKH9E8J9KRA83ZYVUDNQERY2V8K8E2K4JSFUDDVE5ZX3MY0G5S2Z90EV"
        let two = "AGE-SECRET-KEY-1EGTZVFFV20835NWYV6270LXYVK2VKNX2MMDKWYKLMGR48UAWX40Q2P2LM0"
        let recipient = "age1mjjx542r0jht68vz5eer4afr4vsydupyay98lugsrlh3murt8awspmzwjm"
        let written = AgeIdentityFile.encode(identity: one, recipient: recipient, created: 1_795_000_000)
        #expect(String(decoding: written, as: UTF8.self) == "# created: 2026-11-18T11:06:40Z\n# public key: \(recipient)\n\(one)\n")
        let read = try AgeIdentityFile.parse(written)
        #expect(read.identities == [try AgeKeyText.parseIdentity(one)] && read.publicKeyComments == [recipient])
        let crlf = Array("# a comment\r\n\r\n\(one)\r\n\n#\n\(two)".utf8)
        #expect(try AgeIdentityFile.parse(crlf).identities == [try AgeKeyText.parseIdentity(one), try AgeKeyText.parseIdentity(two)])
        func refused(_ text: String) -> AgeFormatError? { refusal { () throws(AgeFormatError) in try AgeIdentityFile.parse(Array(text.utf8)) } }
        #expect(refused("# only a comment\n\n") == .invalid(.identityFile, .noIdentity, at: 18))
        #expect(refused("") == .invalid(.identityFile, .noIdentity, at: 0))
        #expect(refused("# c\nAGE-SECRET-KEY-PQ-1HZLGZUPT4ETPKDEV8HSGFDCYZ4E522W0A7PU2LHT8EH9W6YLNC3SW78XKG\n") == .invalid(.identity, .wrongKeyType, at: 4))
        #expect(refused("\(one)\n \(two)\n") == .invalid(.identity, .badCharacter, at: 75))
        #expect(refused("\(one.lowercased())\n") == .invalid(.identity, .wrongKeyType, at: 0))
        #expect(refused(String(repeating: "#", count: (1 << 20) + 1)) == .overLimit(.identityFile, limit: 1 << 20, at: 1 << 20))
    }

    @Test func creationTimesAreRFC3339InUTC() {
        let cases: [(Int64, String)] = [
            (0, "1970-01-01T00:00:00Z"), (-1, "1969-12-31T23:59:59Z"), (951_868_799, "2000-02-29T23:59:59Z"),
            (1_795_000_000, "2026-11-18T11:06:40Z"), (253_402_300_799, "9999-12-31T23:59:59Z"), (-62_135_596_800, "0001-01-01T00:00:00Z"),
            (.max, "9999-12-31T23:59:59Z"), (.min, "0001-01-01T00:00:00Z"),
        ]
        for (seconds, text) in cases { #expect(AgeIdentityFile.rfc3339(seconds) == text, "\(seconds)") }
    }
}
