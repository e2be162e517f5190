import Hummingbird
import NIOCore
import TodoCore

/// What "Add to Home Screen" needs (docs/SERVE.md, "Home screen"): a web app manifest naming the
/// household, and its icon, a white tick on a colour of the household's own (picked by its name
/// from `colours`, each with white text at 4.5:1 or more), as SVG and as 192 and 512 px PNGs.
/// Served without a session: a browser fetches the manifest and icons without cookies.
struct HomeScreen {
    let site: Site

    /// Dark colours white reads on (`PageStyleTests` checks the contrast).
    static let colours = ["#0b4f8a", "#8a1c00", "#1e5e2f", "#5b2a86", "#7a4b00", "#00606b", "#8a0b4f", "#3d4a5c"]

    static func colour(for household: String) -> String {
        // FNV-1a over the name's bytes: the same colour on every start and machine.
        var hash: UInt32 = 2_166_136_261
        for b in household.utf8 { hash = (hash ^ UInt32(b)) &* 16_777_619 }
        return colours[Int(hash % UInt32(colours.count))]
    }

    func register(on g: RouterGroup<ServeContext>) {
        let colour = Self.colour(for: site.household)
        let manifest = Self.manifest(household: site.household, prefix: site.prefix, colour: colour)
        let svg = Self.svg(colour: colour)
        let png192 = Self.png(size: 192, colour: colour)
        let png512 = Self.png(size: 512, colour: colour)
        @Sendable func answer(_ type: String, _ bytes: [UInt8]) -> Response {
            Response(
                status: .ok, headers: [.contentType: type, .cacheControl: "public, max-age=86400"],
                body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
        g.get("/manifest.webmanifest") { _, _ in answer("application/manifest+json", manifest) }
        g.get("/static/icon.svg") { _, _ in answer("image/svg+xml", svg) }
        g.get("/static/icon-192.png") { _, _ in answer("image/png", png192) }
        g.get("/static/icon-512.png") { _, _ in answer("image/png", png512) }
    }

    /// The manifest: the household's name, its pages' start and scope, standalone, its icons.
    static func manifest(household: String, prefix: String, colour: String) -> [UInt8] {
        func icon(_ file: String, _ sizes: String, _ type: String, _ purpose: String) -> JSONValue {
            .object([
                ("src", .string(prefix + "/static/" + file)), ("sizes", .string(sizes)), ("type", .string(type)),
                ("purpose", .string(purpose)),
            ])
        }
        let doc = JSONValue.object([
            ("name", .string("todo: " + household)), ("short_name", .string(household)),
            ("description", .string("The household's chores, tasks and lists.")),
            ("id", .string(prefix + "/")), ("start_url", .string(prefix + "/")), ("scope", .string(prefix + "/")),
            ("display", .string("standalone")), ("background_color", .string(Palette.background)),
            ("theme_color", .string(colour)),
            ("icons", .array([
                icon("icon-192.png", "192x192", "image/png", "any"), icon("icon-512.png", "512x512", "image/png", "any"),
                icon("icon-512.png", "512x512", "image/png", "maskable"), icon("icon.svg", "any", "image/svg+xml", "any"),
            ])),
        ])
        return JSONWriter.document(doc)
    }

    /// The tick's three points on a 100-unit square, and its stroke: inside the safe zone a
    /// maskable icon keeps (the middle 80%).
    static let tick: [(Double, Double)] = [(27, 52), (43, 68), (74, 36)]
    static let stroke = 10.0

    static func svg(colour: String) -> [UInt8] {
        let points = tick.map { "\(Int($0.0)),\(Int($0.1))" }.joined(separator: " ")
        return Array(
            """
            <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100"><rect width="100" height="100" fill="\(colour)"/>\
            <polyline points="\(points)" fill="none" stroke="#ffffff" stroke-width="\(Int(stroke))" stroke-linecap="round" stroke-linejoin="round"/></svg>

            """.utf8)
    }

    /// A `size`×`size` PNG of the icon: two colours, one bit a pixel, stored (uncompressed) in
    /// its zlib stream: small enough, and no compressor is needed.
    static func png(size: Int, colour: String) -> [UInt8] {
        let rowBytes = (size + 7) / 8
        var raw = [UInt8](repeating: 0, count: (rowBytes + 1) * size)
        let scale = Double(size) / 100
        let half = stroke / 2
        for y in 0..<size {
            for x in 0..<size {
                let p = ((Double(x) + 0.5) / scale, (Double(y) + 0.5) / scale)
                let near = zip(tick, tick.dropFirst()).contains { distance(p, $0.0, $0.1) <= half }
                if near { raw[y * (rowBytes + 1) + 1 + x / 8] |= 0x80 >> UInt8(x % 8) }
            }
        }
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        chunk("IHDR", be32(UInt32(size)) + be32(UInt32(size)) + [1, 3, 0, 0, 0], into: &out)
        chunk("PLTE", rgb(colour) + [0xFF, 0xFF, 0xFF], into: &out)
        chunk("IDAT", zlibStored(raw), into: &out)
        chunk("IEND", [], into: &out)
        return out
    }

    static func distance(_ p: (Double, Double), _ a: (Double, Double), _ b: (Double, Double)) -> Double {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1)
        let t = max(0, min(1, ((p.0 - a.0) * dx + (p.1 - a.1) * dy) / (dx * dx + dy * dy)))
        let (qx, qy) = (a.0 + t * dx - p.0, a.1 + t * dy - p.1)
        return (qx * qx + qy * qy).squareRoot()
    }

    static func rgb(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8.dropFirst())
        return stride(from: 0, to: 6, by: 2).map { i in UInt8(String(decoding: digits[i..<i + 2], as: UTF8.self), radix: 16) ?? 0 }
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    static func chunk(_ type: String, _ data: [UInt8], into out: inout [UInt8]) {
        let typed = Array(type.utf8) + data
        out += be32(UInt32(data.count)) + typed + be32(crc32(typed))
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return c ^ 0xFFFF_FFFF
    }

    /// A zlib stream of stored deflate blocks (RFC 1950, RFC 1951 §3.2.4).
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = [0x78, 0x01]
        var i = 0
        repeat {
            let n = min(65_535, data.count - i)
            let last: UInt8 = i + n == data.count ? 1 : 0
            out += [last, UInt8(n & 0xFF), UInt8(n >> 8), UInt8(~n & 0xFF), UInt8((~n >> 8) & 0xFF)]
            out += data[i..<i + n]
            i += n
        } while i < data.count
        var a: UInt32 = 1
        var b: UInt32 = 0
        for x in data {
            a = (a + UInt32(x)) % 65_521
            b = (b + a) % 65_521
        }
        return out + be32(b << 16 | a)
    }
}
