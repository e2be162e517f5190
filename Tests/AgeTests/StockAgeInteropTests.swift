import Age
import AgeFormat
import Foundation
import TestKit
import Testing

/// Debian's `age` (1.1.1) is the judge: it reads the files and identity files `Age` writes,
/// and `Age` reads the files and identity files it and `age-keygen` write, for several
/// recipients and plaintexts of 0 bytes, 1, around one chunk (65535, 65536, 65537) and over a
/// MiB. A missing `age` fails the tests: `scripts/deps.sh --test` installs it.
@Suite(.kit, .timeLimit(.minutes(5))) struct StockAgeInteropTests {
    static let sizes = [0, 1, 65535, 65536, 65537, (1 << 20) + 3]
    static let timeout: Duration = .seconds(120)

    func program(_ name: String) throws -> String {
        try #require(
            findProgram(name), "\(name) is not installed: the Debian package age installs it; run scripts/deps.sh --test (as root it installs what the tests need)")
    }

    /// `size` bytes from the run's seed.
    static func plaintext(_ size: Int) -> [UInt8] {
        var rng = PropertySeed.generator(case: size, salt: 0xa6e)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(size + 8)
        while bytes.count < size { withUnsafeBytes(of: rng.next()) { bytes += $0 } }
        return Array(bytes.prefix(size))
    }

    func write(_ bytes: [UInt8], _ path: String, mode: Int = 0o600) throws {
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes), attributes: [.posixPermissions: mode]))
    }

    func read(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// Files `Age` encrypts to two recipients open with `age -d -i` and either one's identity
    /// file as `Age` writes it; a third identity opens nothing.
    @Test func stockAgeReadsWhatAgeWrites() throws {
        let age = try program("age")
        let dir = TemporaryDirectory("age-interop")
        let alice = AgeIdentity.generate()
        let bob = AgeIdentity.generate()
        try write(alice.identityFile(created: 1_795_000_000), dir.path + "/alice.key")
        try write(bob.identityFile(created: 1_795_000_000), dir.path + "/bob.key")
        try write(AgeIdentity.generate().identityFile(created: 0), dir.path + "/stranger.key")
        for size in Self.sizes {
            let plaintext = Self.plaintext(size)
            let file = try Age.encrypt(plaintext, to: [alice.recipient, bob.recipient])
            let path = dir.path + "/\(size).age"
            try write(file, path)
            for who in ["alice", "bob"] {
                // (Standard output: `age -o` makes no file for an empty plaintext.)
                let run = try runProcess(age, ["-d", "-i", dir.path + "/\(who).key", path], timeout: Self.timeout)
                #expect(run.succeeded, "\(size) bytes, \(who): \(run)")
                #expect(run.stdoutBytes == plaintext, "\(size) bytes, \(who)")
            }
            let stranger = try runProcess(age, ["-d", "-i", dir.path + "/stranger.key", path], timeout: Self.timeout)
            #expect(!stranger.succeeded && stranger.stderr.contains("no identity matched"), "\(stranger)")
        }
    }

    /// Files `age -e` encrypts to two recipients (one of them `age-keygen`'s) open with `Age`
    /// and the identity of either, read from `age-keygen`'s identity file or `Age`'s; an
    /// identity of neither finds no stanza of its own.
    @Test func ageReadsWhatStockAgeWrites() throws {
        let age = try program("age")
        let keygen = try program("age-keygen")
        let dir = TemporaryDirectory("age-interop")
        let made = try runProcess(keygen, ["-o", dir.path + "/keygen.key"], timeout: Self.timeout)
        try #require(made.succeeded, "\(made)")
        let fromKeygen = try #require(try AgeIdentity.parseFile(try read(dir.path + "/keygen.key")).first)
        let ours = AgeIdentity.generate()
        let stranger = AgeIdentity.generate()
        for size in Self.sizes {
            let plaintext = Self.plaintext(size)
            try write(plaintext, dir.path + "/\(size)")
            let path = dir.path + "/\(size).age"
            let run = try runProcess(
                age, ["-e", "-r", fromKeygen.recipient.text, "-r", ours.recipient.text, "-o", path, dir.path + "/\(size)"], timeout: Self.timeout)
            try #require(run.succeeded, "\(run)")
            let file = try read(path)
            // age writes the header as AgeHeader encodes it, byte for byte.
            let header = try AgeHeader.parse(file)
            #expect(AgeHeader.encode(header.stanzas, mac: header.mac)[...] == file[..<header.end])
            #expect(header.stanzas.map(\.type) == ["X25519", "X25519"])
            #expect(try Age.decrypt(file, identities: [fromKeygen]) == plaintext, "\(size) bytes, age-keygen's identity")
            #expect(try Age.decrypt(file, identities: [stranger, ours]) == plaintext, "\(size) bytes, ours after a stranger")
            #expect(decrypting(file, [stranger]) == .failure(.noMatchingIdentity), "\(size) bytes")
        }
    }

    /// `age-keygen`'s identity file reads as one identity whose recipient is the one its comment
    /// and `age-keygen -y` name; the identity file `Age` writes is `age-keygen`'s format, and
    /// `age-keygen -y` gives the recipient `Age` derives.
    @Test func identityFilesGoBothWays() throws {
        let keygen = try program("age-keygen")
        let dir = TemporaryDirectory("age-interop")
        let made = try runProcess(keygen, ["-o", dir.path + "/keygen.key"], timeout: Self.timeout)
        try #require(made.succeeded, "\(made)")
        let text = try read(dir.path + "/keygen.key")
        let file = try AgeIdentityFile.parse(text)
        let identities = try AgeIdentity.parseFile(text)
        try #require(identities.count == 1 && file.publicKeyComments.count == 1)
        let fromFile = try runProcess(keygen, ["-y", dir.path + "/keygen.key"], timeout: Self.timeout)
        #expect(fromFile.lines == [identities[0].recipient.text], "\(fromFile)")
        #expect(file.publicKeyComments == [identities[0].recipient.text])
        #expect(made.stderr.contains(identities[0].recipient.text))
        #expect(String(decoding: text, as: UTF8.self).contains(identities[0].secretText + "\n"))

        let ours = AgeIdentity.generate()
        try write(ours.identityFile(created: 1_795_000_000), dir.path + "/ours.key")
        let derived = try runProcess(keygen, ["-y", dir.path + "/ours.key"], timeout: Self.timeout)
        #expect(derived.succeeded && derived.lines == [ours.recipient.text], "\(derived)")
        let lines = String(decoding: ours.identityFile(created: 1_795_000_000), as: UTF8.self).split(separator: "\n")
        #expect(lines == ["# created: 2026-11-18T11:06:40Z", "# public key: \(ours.recipient.text)", "\(ours.secretText)"])
    }
}
