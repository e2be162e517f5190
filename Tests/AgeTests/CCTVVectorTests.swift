@testable import Age
import AgeFormat
import CInterposers
import Crypto
import Foundation
import TestKit
import Testing

/// One of the Community Cryptography Test Vectors for age (fixtures/age-cctv, C2SP/CCTV's
/// `age/testdata`, with their licence): `key: value` lines, an empty line, the age file
/// (zlib-compressed when `compressed: zlib` says so).
struct AgeVector {
    let name: String
    let fields: [(key: String, value: String)]
    let file: [UInt8]

    func values(_ key: String) -> [String] { fields.filter { $0.key == key }.map(\.value) }
    func value(_ key: String) -> String? { values(key).first }

    static let folder = fixture("age-cctv")

    static func all() throws -> [AgeVector] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0 != "LICENSE" && $0 != "README.md" }.sorted()
        return try names.map { try load($0) }
    }

    static func load(_ name: String) throws -> AgeVector {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
        let blank = try #require((0..<bytes.count - 1).first { bytes[$0] == 10 && bytes[$0 + 1] == 10 }, "\(name): no empty line")
        let lines = String(decoding: bytes[..<blank], as: UTF8.self).split(separator: "\n")
        let fields = try lines.map { line in
            let colon = try #require(line.firstRange(of: ": "), "\(name): \(line)")
            return (String(line[..<colon.lowerBound]), String(line[colon.upperBound...]))
        }
        var file = Array(bytes[(blank + 2)...])
        if fields.contains(where: { $0 == ("compressed", "zlib") }) { file = try inflate(file, name: name) }
        return AgeVector(name: name, fields: fields, file: file)
    }

    /// The zlib stream `bytes`, inflated (through CInterposers' zlib helper).
    static func inflate(_ bytes: [UInt8], name: String) throws -> [UInt8] {
        let inflater = try #require(todo_inflater_new(), "no zlib inflater")
        defer { todo_inflater_free(inflater) }
        var out = [UInt8](repeating: 0, count: 32 << 20)
        var produced = 0
        let rc = out.withUnsafeMutableBufferPointer { o in
            bytes.withUnsafeBufferPointer { i in
                todo_inflate_entry(inflater, i.baseAddress, i.count, o.baseAddress, o.count, 0, &produced)
            }
        }
        try #require(rc == 0 && produced < out.count, "\(name): not one zlib stream of under 32 MiB")
        return Array(out[..<produced])
    }

    /// Why this vector is not run: a feature `Age` does not offer.
    var skipReason: String? {
        if value("armored") == "yes" { return "armor" }
        if value("passphrase") != nil { return "scrypt" }
        if values("identity").contains(where: { $0.hasPrefix("AGE-SECRET-KEY-PQ-") }) { return "ML-KEM hybrid" }
        return nil
    }
}

@Suite(.kit, .timeLimit(.minutes(3))) struct CCTVVectorTests {
    /// Every vector not skipped for armor, scrypt or the ML-KEM hybrid: a success decrypts to
    /// the payload whose SHA-256 it names (with the file key it names), and every failure fails
    /// as its `expect` says. The counts are fixed, so a vector skipped by mistake fails the test.
    @Test func everyVectorDecryptsOrFailsAsExpected() throws {
        var ran = 0
        var skipped: [String: Int] = [:]
        for vector in try AgeVector.all() {
            if let reason = vector.skipReason {
                skipped[reason, default: 0] += 1
                continue
            }
            ran += 1
            let expect = try #require(vector.value("expect"), "\(vector.name): no expect")
            let identities = try vector.values("identity").map { try AgeIdentity($0) }
            let result = decrypting(vector.file, identities)
            switch (expect, result) {
            case ("success", .success(let plaintext)):
                #expect(Self.hex(Array(SHA256.hash(data: plaintext))) == vector.value("payload"), "\(vector.name)")
            case ("header failure", .failure(.notAgeFile)), ("header failure", .failure(.damagedHeader)),
                ("no match", .failure(.noMatchingIdentity)), ("HMAC failure", .failure(.headerMAC)),
                ("payload failure", .failure(.damagedPayload)):
                break
            default:
                Issue.record("\(vector.name): expected \(expect), got \(result)")
            }
            if ["success", "HMAC failure", "payload failure"].contains(expect) {
                #expect(try Self.fileKey(vector.file, identities) == vector.value("file key"), "\(vector.name)")
            }
        }
        #expect(ran == 67)
        #expect(skipped == ["armor": 33, "scrypt": 25, "ML-KEM hybrid": 18])
    }

    /// Every header the parser reads is encoded again to exactly its bytes (the parser reads
    /// only the canonical encoding, which is what the MAC covers).
    @Test func everyHeaderReadIsEncodedAgainToItsBytes() throws {
        var read = 0
        for vector in try AgeVector.all() where vector.value("armored") != "yes" {
            guard let header = try? AgeHeader.parse(vector.file) else { continue }  // refusals: the test above
            read += 1
            #expect(AgeHeader.encode(header.stanzas, mac: header.mac)[...] == vector.file[..<header.end], "\(vector.name)")
            #expect(AgeHeader.encodeWithoutMAC(header.stanzas)[...] == vector.file[header.macCovered], "\(vector.name)")
        }
        #expect(read > 60)
    }

    /// A passphrase (scrypt) stanza beside an X25519 one is refused as a damaged header even
    /// with the X25519 stanza's identity at hand, as age requires (the vector runs here though
    /// scrypt vectors are skipped above).
    @Test func anScryptStanzaBesideAnX25519OneIsRefused() throws {
        let vector = try AgeVector.load("scrypt_and_x25519")
        let identities = try vector.values("identity").map { try AgeIdentity($0) }
        let refused = decrypting(vector.file, identities)
        guard case .failure(.damagedHeader(.invalid(.stanza, .scryptNotAlone, _))) = refused else {
            Issue.record("\(refused)")
            return
        }
        let alone = try AgeVector.load("scrypt")
        #expect(decrypting(alone.file, [AgeIdentity.generate()]) == .failure(.noMatchingIdentity))
    }

    /// The file key the identities find in `file`'s header, in hex.
    static func fileKey(_ file: [UInt8], _ identities: [AgeIdentity]) throws -> String? {
        let header = try AgeHeader.parse(file)
        let stanzas = try zip(header.stanzas, header.stanzaOffsets).filter { $0.0.type == AgeX25519Stanza.type }.map {
            (stanza: try AgeX25519Stanza($0.0, at: $0.1), offset: $0.1)
        }
        return try Age.unwrap(stanzas, identities: identities).map(hex)
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}

/// `Age.decrypt` as a value, to compare.
func decrypting(_ file: [UInt8], _ identities: [AgeIdentity]) -> Result<[UInt8], AgeError> {
    do throws(AgeError) { return .success(try Age.decrypt(file, identities: identities)) } catch { return .failure(error) }
}
