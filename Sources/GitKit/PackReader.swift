import CLibgit2
import CInterposers
import GitFormats
import Glibc

/// A repository's packs, mapped for `PackReader`s: each `.idx` (version 2) with its `.pack`.
/// Immutable once made, so the readers of several threads share one. Only packs whose index was
/// written on this machine are read this way (a clone's or a fetch's packs, indexed by libgit2's
/// indexer, which computed every id from the content; the household's own): nothing read is
/// hashed again. Every byte is still treated as untrusted: an entry that cannot be read here,
/// for whatever reason, is left to libgit2 (`PackReader` answers nil).
public final class PackFiles: @unchecked Sendable {  // immutable after init; the mapped bytes are only read, and unmapped in deinit
    struct Pack {
        let index: PackIndex
        let data: UnsafeRawBufferPointer
    }

    let packs: [Pack]
    /// Largest object (and delta) read here; larger ones are left to libgit2.
    static let maxObject = 64 << 20

    /// The packs in `gitDirectory`'s `objects/pack`; an index or pack that cannot be mapped or
    /// does not look right is passed over (its objects are then read by libgit2).
    public init(gitDirectory: String) {
        let folder = gitDirectory + "objects/pack/"
        var packs: [Pack] = []
        if let dir = opendir(folder) {
            defer { closedir(dir) }
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
                guard name.hasPrefix("pack-"), name.hasSuffix(".idx") else { continue }
                let base = folder + String(name.dropLast(4))
                guard let index = Self.map(base + ".idx") else { continue }
                guard let data = Self.map(base + ".pack") else {
                    munmap(UnsafeMutableRawPointer(mutating: index.baseAddress), index.count)
                    continue
                }
                if let pack = Self.pack(index: index, data: data) {
                    packs.append(pack)
                } else {
                    munmap(UnsafeMutableRawPointer(mutating: index.baseAddress), index.count)
                    munmap(UnsafeMutableRawPointer(mutating: data.baseAddress), data.count)
                }
            }
        }
        self.packs = packs
    }

    deinit {
        for pack in packs {
            munmap(UnsafeMutableRawPointer(mutating: pack.index.bytes.baseAddress), pack.index.bytes.count)
            munmap(UnsafeMutableRawPointer(mutating: pack.data.baseAddress), pack.data.count)
        }
    }

    /// The whole file at `path`, mapped read-only; nil when it cannot be, or is empty.
    private static func map(_ path: String) -> UnsafeRawBufferPointer? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_size > 0 else { return nil }
        guard let base = mmap(nil, Int(st.st_size), PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else { return nil }
        return UnsafeRawBufferPointer(start: base, count: Int(st.st_size))
    }

    /// The pack of a version 2 index whose tables fit in it and whose fan-out never falls,
    /// and whose pack has the header a pack has (`PackIndex`); nil otherwise.
    private static func pack(index: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer) -> Pack? {
        do {
            try PackIndex.checkPack(data)
            return Pack(index: try PackIndex(index, packSize: data.count), data: data)
        } catch {
            // Passed over: its objects are read by libgit2, which says what is wrong.
            return nil
        }
    }

    /// Where object `id` starts: its pack and offset there; nil when no pack holds it (or its
    /// offset makes no sense).
    func locate(_ id: ObjectID) -> (pack: Int, offset: Int)? {
        withUnsafeBytes(of: id.raw.id) { key -> (Int, Int)? in
            for (p, pack) in packs.enumerated() {
                guard let position = pack.index.position(of: key) else { continue }
                do {
                    return (p, try pack.index.offset(at: position))
                } catch {
                    // An offset outside the pack: left to libgit2.
                    return nil
                }
            }
            return nil
        }
    }
}

/// Reads objects from `PackFiles` without libgit2: one zlib stream reused for every entry, and
/// a cache of the objects read (the bases of the next deltas: a history's trees are deltas of
/// each other). For the check of received history (`TreeChanges`), which reads each tree and
/// commit once. Not for use from several threads at once; one reader per thread.
public final class PackReader {
    /// Git's object types as a pack numbers them.
    public enum Kind: UInt8, Sendable {
        case commit = 1, tree = 2, blob = 3, tag = 4
    }

    let files: PackFiles
    private let inflater: UnsafeMutableRawPointer?

    /// Objects read, by place (pack and offset), with the order they came in, the oldest
    /// forgotten first once they hold more than `cacheBytes`.
    private var cache: [Int: (kind: Kind, bytes: [UInt8])] = [:]
    private var order: [Int] = []
    private var oldest = 0
    private var cached = 0
    static let cacheBytes = 4 << 20
    /// Deltas on deltas followed before giving up (git's chains are at most 50 long unless
    /// `--depth` says otherwise, and never longer than 4,095).
    static let maxChain = 4096

    public init(_ files: PackFiles) {
        self.files = files
        inflater = todo_inflater_new()
    }

    deinit { todo_inflater_free(inflater) }

    /// The kind and content of object `id`; nil when no pack here holds it or its entry cannot
    /// be read here (the caller asks libgit2, which says what is wrong, if anything).
    public func read(_ id: ObjectID) -> (kind: Kind, bytes: [UInt8])? {
        guard let (pack, offset) = files.locate(id) else { return nil }
        return object(pack: pack, offset: offset)
    }

    /// The size of object `id`, from its entry's header (a delta's result size from the start
    /// of the delta) without reading the rest; nil as for `read`.
    public func size(_ id: ObjectID) -> Int? {
        guard let (pack, offset) = files.locate(id) else { return nil }
        if let known = cache[key(pack, offset)] { return known.bytes.count }
        guard let entry = header(pack: pack, offset: offset) else { return nil }
        switch entry.type {
        case 1...4: return entry.size
        case 6, 7:
            // The delta's two sizes, base and result, take at most 20 bytes.
            guard let start = inflate(pack: pack, entry, first: min(20, entry.size)) else { return nil }
            return start.withUnsafeBytes { bytes in
                do {
                    return try Delta.sizes(bytes).result
                } catch {
                    // Left to libgit2, as for `read`.
                    return nil
                }
            }
        default: return nil
        }
    }

    private func key(_ pack: Int, _ offset: Int) -> Int { pack << 48 | offset }

    /// The byte at `offset` of a mapped file, for zlib.
    private func at(_ data: UnsafeRawBufferPointer, _ offset: Int) -> UnsafePointer<UInt8> {
        (data.baseAddress! + offset).assumingMemoryBound(to: UInt8.self)
    }

    /// An entry's header (`PackEntryHeader`) and, for a delta, where its base is.
    private struct Header {
        let type: UInt8
        let size: Int
        let start: Int
        var base: (pack: Int, offset: Int)?
    }

    private func header(pack: Int, offset: Int) -> Header? {
        let entry: PackEntryHeader
        do {
            entry = try PackEntryHeader(pack: files.packs[pack].data, at: offset, maxSize: PackFiles.maxObject)
        } catch {
            // Left to libgit2, which says what is wrong.
            return nil
        }
        switch entry.base {
        case .none: return Header(type: entry.type, size: entry.size, start: entry.start)
        case .offset(let base): return Header(type: entry.type, size: entry.size, start: entry.start, base: (pack, base))
        case .id(let raw):
            guard let id = ObjectID(raw: raw[...]), let base = files.locate(id) else { return nil }
            return Header(type: entry.type, size: entry.size, start: entry.start, base: base)
        }
    }

    /// The inflated data of an entry, exactly `header.size` bytes; with `first`, only its first
    /// bytes, up to that many.
    private func inflate(pack: Int, _ header: Header, first: Int? = nil) -> [UInt8]? {
        let data = files.packs[pack].data
        let wanted = first ?? header.size
        var failed = false
        let bytes = [UInt8](unsafeUninitializedCapacity: wanted) { out, count in
            var produced = 0
            failed =
                todo_inflate_entry(
                    inflater, at(data, header.start), data.count - 20 - header.start, out.baseAddress, wanted, first == nil ? 1 : 0, &produced)
                != 0
            count = failed ? 0 : produced
        }
        return failed ? nil : bytes
    }

    /// The object whose entry is at `offset` in `pack`: its base first (from the cache, or
    /// followed down to a whole object), then each delta on the way back up, every one cached.
    private func object(pack: Int, offset: Int) -> (kind: Kind, bytes: [UInt8])? {
        var chain: [(pack: Int, offset: Int, header: Header)] = []
        var place = (pack: pack, offset: offset)
        var result: (kind: Kind, bytes: [UInt8])
        while true {
            if let known = cache[key(place.pack, place.offset)] {
                result = known
                break
            }
            guard chain.count < Self.maxChain, let entry = header(pack: place.pack, offset: place.offset) else { return nil }
            if let base = entry.base {
                chain.append((place.pack, place.offset, entry))
                place = base
                continue
            }
            guard let kind = Kind(rawValue: entry.type), let bytes = inflate(pack: place.pack, entry) else { return nil }
            result = (kind, bytes)
            remember(key(place.pack, place.offset), result)
            break
        }
        for link in chain.reversed() {
            guard let delta = inflate(pack: link.pack, link.header), let bytes = Self.apply(delta, to: result.bytes) else { return nil }
            result = (result.kind, bytes)
            remember(key(link.pack, link.offset), result)
        }
        return result
    }

    private func remember(_ key: Int, _ object: (kind: Kind, bytes: [UInt8])) {
        guard object.bytes.count <= Self.cacheBytes / 4, cache[key] == nil else { return }
        cache[key] = object
        order.append(key)
        cached += object.bytes.count
        while cached > Self.cacheBytes, oldest < order.count {
            if let gone = cache.removeValue(forKey: order[oldest]) { cached -= gone.bytes.count }
            oldest += 1
        }
        if oldest > 4096 && oldest * 2 > order.count {
            order.removeFirst(oldest)
            oldest = 0
        }
    }

    /// `base` with git's delta `delta` applied (`Delta.apply`); nil when the delta is not one
    /// for `base` or is damaged.
    static func apply(_ delta: [UInt8], to base: [UInt8]) -> [UInt8]? {
        do {
            return try Delta.apply(delta, to: base, maxSize: PackFiles.maxObject)
        } catch {
            // The caller leaves the object to libgit2.
            return nil
        }
    }
}
