import CInterposers
import Glibc

/// A repository's packs, mapped for `PackReader`s: each `.idx` (version 2) with its `.pack`.
/// Immutable once made, so the readers of several threads share one. Only packs whose index was
/// written on this machine are read this way (a clone's or a fetch's packs, indexed by libgit2's
/// indexer, which computed every id from the content; the household's own): nothing read is
/// hashed again. Every byte is still treated as untrusted: an entry that cannot be read here,
/// for whatever reason, is left to libgit2 (`PackReader` answers nil).
public final class PackFiles: @unchecked Sendable {
    struct Pack {
        let index: UnsafeRawBufferPointer
        let data: UnsafeRawBufferPointer
        let count: Int
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
                if let count = Self.objectCount(index: index, data: data) {
                    packs.append(Pack(index: index, data: data, count: count))
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
            munmap(UnsafeMutableRawPointer(mutating: pack.index.baseAddress), pack.index.count)
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

    /// The number of objects of a version 2 index whose tables fit in it and whose fan-out
    /// never falls, and whose pack has the header a pack has; nil otherwise.
    private static func objectCount(index: UnsafeRawBufferPointer, data: UnsafeRawBufferPointer) -> Int? {
        guard index.count >= 8 + 1024 + 40, index[0] == 0xFF, index[1] == 0x74, index[2] == 0x4F, index[3] == 0x63,
            Int(IndexFile.u32(index, 4)) == 2
        else { return nil }
        var previous = 0
        for i in 0..<256 {
            let n = Int(IndexFile.u32(index, 8 + 4 * i))
            guard n >= previous else { return nil }
            previous = n
        }
        let count = previous
        // Ids, CRCs and offsets, then the checksums; large offsets between them, if any.
        guard count <= (index.count - 1072) / 28 else { return nil }
        guard data.count >= 32, data[0] == 0x50, data[1] == 0x41, data[2] == 0x43, data[3] == 0x4B else { return nil }
        return count
    }

    /// Where object `id` starts: its pack and offset there; nil when no pack holds it (or its
    /// offset makes no sense).
    func locate(_ id: ObjectID) -> (pack: Int, offset: Int)? {
        withUnsafeBytes(of: id.raw.id) { key -> (Int, Int)? in
            let first = Int(key[0])
            for (p, pack) in packs.enumerated() {
                let idx = pack.index
                var low = first == 0 ? 0 : Int(IndexFile.u32(idx, 8 + 4 * (first - 1)))
                var high = Int(IndexFile.u32(idx, 8 + 4 * first))
                guard low <= high, high <= pack.count else { continue }
                let ids = 1032
                while low < high {
                    let mid = (low + high) / 2
                    let order = memcmp(idx.baseAddress! + ids + 20 * mid, key.baseAddress!, 20)
                    if order == 0 {
                        guard let offset = Self.offset(pack, mid) else { return nil }
                        return (p, offset)
                    }
                    if order < 0 { low = mid + 1 } else { high = mid }
                }
            }
            return nil
        }
    }

    /// The pack offset of the `n`th object of `pack`'s index; nil when it lies outside the pack.
    private static func offset(_ pack: Pack, _ n: Int) -> Int? {
        let idx = pack.index
        let offsets = 1032 + 24 * pack.count
        var offset = Int(IndexFile.u32(idx, offsets + 4 * n))
        if offset & 0x8000_0000 != 0 {
            let at = offsets + 4 * pack.count + 8 * (offset & 0x7FFF_FFFF)
            guard at + 8 <= idx.count - 40 else { return nil }
            offset = Int(IndexFile.u32(idx, at)) << 32 | Int(IndexFile.u32(idx, at + 4))
        }
        guard offset >= 12, offset < pack.data.count - 20 else { return nil }
        return offset
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
            var i = 0
            guard Self.varint(start[...], &i) != nil, let size = Self.varint(start[...], &i) else { return nil }
            return size
        default: return nil
        }
    }

    private func key(_ pack: Int, _ offset: Int) -> Int { pack << 48 | offset }

    /// The byte at `offset` of a mapped file, for zlib.
    private func at(_ data: UnsafeRawBufferPointer, _ offset: Int) -> UnsafePointer<UInt8> {
        (data.baseAddress! + offset).assumingMemoryBound(to: UInt8.self)
    }

    /// An entry's header: its type, the size of its data (inflated), where its zlib stream
    /// starts, and for a delta where its base is.
    private struct Header {
        let type: UInt8
        let size: Int
        let start: Int
        var base: (pack: Int, offset: Int)?
    }

    private func header(pack: Int, offset: Int) -> Header? {
        let data = files.packs[pack].data
        let end = data.count - 20
        var i = offset
        guard i < end else { return nil }
        var c = data[i]
        let type = (c >> 4) & 7
        var size = Int(c & 15)
        var shift = 4
        while c & 0x80 != 0 {
            i += 1
            guard i < end, shift <= 49 else { return nil }
            c = data[i]
            size |= Int(c & 0x7F) << shift
            shift += 7
        }
        i += 1
        guard size <= PackFiles.maxObject else { return nil }
        switch type {
        case 1...4:
            return Header(type: type, size: size, start: i)
        case 6:
            guard i < end else { return nil }
            c = data[i]
            var distance = Int(c & 0x7F)
            while c & 0x80 != 0 {
                i += 1
                guard i < end, distance < 1 << 48 else { return nil }
                c = data[i]
                distance = ((distance + 1) << 7) | Int(c & 0x7F)
            }
            i += 1
            guard distance > 0, distance <= offset - 12 else { return nil }
            return Header(type: type, size: size, start: i, base: (pack, offset - distance))
        case 7:
            guard i + 20 <= end else { return nil }
            guard let id = ObjectID(raw: Array(UnsafeRawBufferPointer(rebasing: data[i..<i + 20]))[...]), let base = files.locate(id) else {
                return nil
            }
            return Header(type: type, size: size, start: i + 20, base: base)
        default:
            return nil
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

    /// A delta's little-endian base-128 number at `i`, moving `i` past it.
    static func varint(_ bytes: ArraySlice<UInt8>, _ i: inout Int) -> Int? {
        var value = 0
        var shift = 0
        while true {
            guard i < bytes.count, shift <= 56 else { return nil }
            let c = bytes[bytes.startIndex + i]
            i += 1
            value |= Int(c & 0x7F) << shift
            shift += 7
            if c & 0x80 == 0 { return value }
        }
    }

    /// `base` with git's delta `delta` applied; nil when the delta is not one for `base` (its
    /// sizes differ, a copy reaches past `base`, the result would differ from the size it
    /// states) or is damaged.
    static func apply(_ delta: [UInt8], to base: [UInt8]) -> [UInt8]? {
        var i = 0
        guard let baseSize = varint(delta[...], &i), baseSize == base.count, let size = varint(delta[...], &i),
            size <= PackFiles.maxObject
        else { return nil }
        var failed = false
        let result = [UInt8](unsafeUninitializedCapacity: size) { out, count in
            count = 0
            delta.withUnsafeBufferPointer { d in
                base.withUnsafeBufferPointer { b in
                    var at = 0
                    while i < d.count {
                        let op = d[i]
                        i += 1
                        if op & 0x80 != 0 {
                            var from = 0
                            var length = 0
                            for bit in 0..<4 where op & (1 << bit) != 0 {
                                guard i < d.count else { failed = true; return }
                                from |= Int(d[i]) << (8 * bit)
                                i += 1
                            }
                            for bit in 0..<3 where op & (0x10 << bit) != 0 {
                                guard i < d.count else { failed = true; return }
                                length |= Int(d[i]) << (8 * bit)
                                i += 1
                            }
                            if length == 0 { length = 0x10000 }
                            guard from <= b.count, length <= b.count - from, length <= size - at else { failed = true; return }
                            (out.baseAddress! + at).initialize(from: b.baseAddress! + from, count: length)
                            at += length
                        } else if op != 0 {
                            let length = Int(op)
                            guard length <= d.count - i, length <= size - at else { failed = true; return }
                            (out.baseAddress! + at).initialize(from: d.baseAddress! + i, count: length)
                            at += length
                            i += length
                        } else {
                            failed = true
                            return
                        }
                    }
                    if at != size { failed = true }
                }
            }
            count = failed ? 0 : size
        }
        return failed ? nil : result
    }
}
