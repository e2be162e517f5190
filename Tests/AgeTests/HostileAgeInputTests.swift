import Age
import AgeFormat
import TestKit
import Testing

/// Random and mutated headers, identity files, keys and whole files, from the run's seed
/// (`TODO_PROPERTY_SEED` replays a run): the parsers answer with a value or a named error
/// whose offset lies in the input, never a trap; whatever parses is the canonical encoding of
/// what was read; and no change to a file decrypts.
@Suite(.kit, .timeLimit(.minutes(3))) struct HostileAgeInputTests {
    /// Valid headers to mutate: age's vectors that parse, and headers of our own.
    static func seeds() throws -> [[UInt8]] {
        var seeds = try AgeVector.all().filter { $0.skipReason == nil }.map { Array($0.file.prefix(2000)) }
        let identity = AgeIdentity.generate()
        for count in 1...3 {
            seeds.append(try Age.encrypt([1, 2, 3], to: (0..<count).map { _ in count == 2 ? identity.recipient : AgeIdentity.generate().recipient }))
        }
        return seeds
    }

    /// Bytes the parsers care about, and a few they should not.
    static let alphabet: [UInt8] = Array("\n\r -> ---X25519scrypt+/=AZaz09age1AGE-SECRET-KEY-1#:".utf8) + [0, 0x7f, 0x80, 0xff]

    static func mutate(_ bytes: [UInt8], rng: inout SplitMix64) -> [UInt8] {
        var out = bytes
        for _ in 0...rng.int(3) {
            let at = out.isEmpty ? 0 : rng.int(out.count)
            switch rng.int(7) {
            case 0 where !out.isEmpty: out[at] ^= UInt8(1 << rng.int(8))
            case 1 where !out.isEmpty: out[at] = rng.pick(alphabet)
            case 2: out.insert(rng.pick(alphabet), at: at)
            case 3 where !out.isEmpty: out.remove(at: at)
            case 4: out = Array(out.prefix(at))
            case 5 where !out.isEmpty:
                // A line again, or a run of bytes copied elsewhere.
                let end = min(out.count, at + 1 + rng.int(80))
                out.insert(contentsOf: out[at..<end], at: rng.int(out.count))
            default: out.insert(contentsOf: Array(String(repeating: "A", count: rng.int(130)).utf8) + [10], at: at)
            }
        }
        return out
    }

    /// A header of random lines made of age's pieces.
    static func randomHeader(rng: inout SplitMix64) -> [UInt8] {
        var out = rng.chance(90) ? AgeHeader.versionLine : []
        let words = ["X25519", "scrypt", "grease", "", "a", "TEiF0ypqr+bpvcqXNyCVJpL7OuwPdVwPL7KQEbFDOCc", "10", "\r", "é"]
        for _ in 0..<rng.int(8) {
            switch rng.int(4) {
            case 0: out += Array(("->" + (0..<rng.int(4)).map { _ in " " + rng.pick(words) }.joined() + "\n").utf8)
            case 1: out += AgeBase64.encode((0..<rng.int(60)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }) + [10]
            case 2: out += [10]
            default: out += (0..<rng.int(20)).map { _ in rng.pick(alphabet) }
            }
        }
        if rng.chance(70) { out += Array("--- ".utf8) + AgeBase64.encode((0..<(rng.chance(80) ? 32 : rng.int(40))).map { _ in UInt8(truncatingIfNeeded: rng.next()) }) + [10] }
        return out + (0..<rng.int(40)).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
    }

    /// The header of `bytes` parses to its own canonical encoding, or is refused inside it.
    static func checkHeader(_ bytes: [UInt8], _ what: String) {
        do {
            let header = try AgeHeader.parse(bytes)
            #expect(AgeHeader.encode(header.stanzas, mac: header.mac)[...] == bytes[..<header.end], "\(what)")
            #expect(AgeHeader.encodeWithoutMAC(header.stanzas)[...] == bytes[header.macCovered], "\(what)")
        } catch {
            #expect(error.offset >= 0 && error.offset <= bytes.count, "\(what): \(error)")
        }
    }

    @Test func randomAndMutatedHeadersGiveNamedErrors() throws {
        let seeds = try Self.seeds()
        var parsed = 0
        for index in 0..<3000 {
            var rng = PropertySeed.generator(case: index, salt: 0xa9e1)
            let bytes = index % 3 == 0 ? Self.randomHeader(rng: &rng) : Self.mutate(rng.pick(seeds), rng: &rng)
            Self.checkHeader(bytes, PropertySeed.describe(case: index))
            // (Whether it parsed is counted only; the check above is the test.)
            if (try? AgeHeader.parse(bytes)) != nil { parsed += 1 }
        }
        // Both branches ran: some mutations leave a header that parses, most do not.
        #expect(parsed > 100 && parsed < 2900, "\(parsed) of 3000 parsed")
    }

    /// Any change to a file (a header byte, a stanza, the nonce, a chunk, its length) is
    /// refused by name: what decrypts is the file as it was written.
    @Test func noMutatedFileDecrypts() throws {
        let alice = AgeIdentity.generate()
        var rng = PropertySeed.generator(case: 0, salt: 0xf11e)
        let files = try [0, 30, 65536, 65537].map { size in
            try Age.encrypt((0..<size).map { _ in UInt8(truncatingIfNeeded: rng.next()) }, to: [AgeIdentity.generate().recipient, alice.recipient])
        }
        var kinds: Set<String> = []
        for index in 0..<1500 {
            var rng = PropertySeed.generator(case: index, salt: 0xf11e)
            let original = rng.pick(files)
            var bytes = original
            if rng.chance(50) && original.count > 70000 {
                // A mutation near a chunk's end or the file's, where truncation and flags live.
                let at = rng.pick([original.count - 1 - rng.int(40), original.count - 17 - rng.int(65536)])
                switch rng.int(3) {
                case 0: bytes[at] ^= UInt8(1 << rng.int(8))
                case 1: bytes = Array(bytes.prefix(at))
                default: bytes.insert(UInt8(truncatingIfNeeded: rng.next()), at: at)
                }
            } else {
                bytes = Self.mutate(original, rng: &rng)
            }
            switch decrypting(bytes, [alice]) {
            case .success: #expect(bytes == original, "\(PropertySeed.describe(case: index)): a changed file decrypted")
            case .failure(.notAgeFile): kinds.insert("not age")
            case .failure(.damagedHeader): kinds.insert("header")
            case .failure(.noMatchingIdentity): kinds.insert("no match")
            case .failure(.headerMAC): kinds.insert("MAC")
            case .failure(.damagedPayload): kinds.insert("payload")
            case .failure(let other): Issue.record("\(PropertySeed.describe(case: index)): \(other)")
            }
        }
        #expect(kinds == ["not age", "header", "no match", "MAC", "payload"], "\(kinds.sorted())")
    }

    @Test func randomIdentityFilesAndKeysGiveNamedErrors() throws {
        let keys = [
            "AGE-SECRET-KEY-183EKH9E8J9KRA83ZYVUDNQERY2V8K8E2K4JSFUDDVE5ZX3MY0G5S2Z90EV",
            "age1mjjx542r0jht68vz5eer4afr4vsydupyay98lugsrlh3murt8awspmzwjm",
        ]
        let file = Array("# created: 2026-11-29T10:45:58Z\n# public key: \(keys[1])\n\(keys[0])\n".utf8)
        for index in 0..<3000 {
            var rng = PropertySeed.generator(case: index, salt: 0x1d)
            let bytes = Self.mutate(index % 2 == 0 ? file : Array(rng.pick(keys).utf8), rng: &rng)
            let what = PropertySeed.describe(case: index)
            do {
                let read = try AgeIdentityFile.parse(bytes)
                #expect(!read.identities.isEmpty && read.identities.allSatisfy { $0.count == 32 }, "\(what)")
            } catch {
                #expect(error.offset >= 0 && error.offset <= bytes.count, "\(what): \(error)")
            }
            let text = String(decoding: bytes, as: UTF8.self)
            do {
                let (hrp, data) = try Bech32.decode(text)
                #expect(Bech32.encode(hrp: hrp, data: data).lowercased() == text.lowercased(), "\(what)")
            } catch {
                #expect(error.offset >= 0 && error.offset <= text.utf8.count, "\(what): \(error)")
            }
        }
    }
}
