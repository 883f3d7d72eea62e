import Foundation
import Testing
@testable import Wheel
import WheelServer

// The images of pager pages: the header sniffer, the byte-bounded cache, and the loader
// against a real `FixtureServer` (static image files, and a handler for faults).

/// Small real images: PNGs made here (stored deflate blocks, so no zlib), the rest made
/// once with cjpeg, cwebp and by hand, embedded in base64.
enum ImageFixtures {
    /// A greyscale PNG of `width`×`height`: signature, IHDR, one IDAT, IEND.
    static func png(width: Int, height: Int, grey: UInt8 = 0x80) -> [UInt8] {
        var raw: [UInt8] = []
        for _ in 0 ..< height { raw += [0] + [UInt8](repeating: grey, count: width) }   // filter 0, then the row
        var zlib: [UInt8] = [0x78, 0x01]
        var offset = 0
        repeat {
            let block = raw[offset ..< min(raw.count, offset + 65_535)]
            offset += block.count
            let length = UInt16(block.count)
            zlib.append(offset == raw.count ? 1 : 0)     // the final block, or not; stored
            zlib += le16(length)
            zlib += le16(~length)
            zlib += block
        } while offset < raw.count
        zlib += be32(adler32(raw))
        var ihdr = be32(UInt32(width)) + be32(UInt32(height))
        ihdr += [8, 0, 0, 0, 0]                           // 8 bits, greyscale, deflate, filter 0, no interlace
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", ihdr) + chunk("IDAT", zlib) + chunk("IEND", [])
    }

    /// 1×1, the classic transparent GIF89a.
    static let gif = decode("R0lGODlhAQABAIAAAAD///8AAAAh+QQBAAAAACwAAAAAAQABAAACAkQBADs=")
    /// 5×3 greyscale, baseline (SOF0), after APP0 JFIF and DQT.
    static let jpeg = decode("/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/wAALCAADAAUBAREA/8QAFAABAAAAAAAAAAAAAAAAAAAABf/EABQQAQAAAAAAAAAAAAAAAAAAAAD/2gAIAQEAAD8AHf/Z")
    /// 2×2 greyscale, progressive (SOF2).
    static let progressiveJPEG = decode("/9j/4AAQSkZJRgABAQAAAQABAAD/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/wgALCAACAAIBAREA/8QAFAABAAAAAAAAAAAAAAAAAAAAAf/aAAgBAQAAAAE//8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABBQJ//8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQAGPwJ//8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPyF//9oACAEBAAAAEH//xAAUEAEAAAAAAAAAAAAAAAAAAAAA/9oACAEBAAE/EH//2Q==")
    /// 5×3, lossy (`VP8 `).
    static let lossyWebP = decode("UklGRjYAAABXRUJQVlA4ICoAAACQAQCdASoFAAMAAsBMJaACdLoAA5gA/u2QP4hd7G2//PTP62/j/xkAAAA=")
    /// 2×2, lossless (`VP8L`).
    static let losslessWebP = decode("UklGRh4AAABXRUJQVlA4TBEAAAAvAUAAAAdQ5CrUo/+BiOh/AAA=")
    /// 4×3, 24 bits, bottom-up, with a 40-byte info header.
    static let bmp = decode("Qk1aAAAAAAAAADYAAAAoAAAABAAAAAMAAAABABgAAAAAACQAAAATCwAAEwsAAAAAAAAAAAAAAAD/AAD/AAD/AAD/AAD/AAD/AAD/AAD/AAD/AAD/AAD/AAD/")

    /// The extended WebP header (`VP8X`) of a 640×480 canvas, then nothing.
    static let extendedWebP: [UInt8] = Array("RIFF".utf8) + le32(22) + Array("WEBPVP8X".utf8) + le32(10)
        + [0x10, 0, 0, 0] + [0x7F, 0x02, 0x00] + [0xDF, 0x01, 0x00]

    static func decode(_ base64: String) -> [UInt8] { [UInt8](Data(base64Encoded: base64)!) }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(UInt32(data.count)) + body + be32(crc32(body))
    }

    static func be32(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
    static func le32(_ value: UInt32) -> [UInt8] { [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: value >> $0) } }
    static func le16(_ value: UInt16) -> [UInt8] { [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)] }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0 ..< 8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1, b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65_521
            b = (b + a) % 65_521
        }
        return b << 16 | a
    }
}

/// A deterministic generator (SplitMix64), so that a failing random test fails again.
struct ImageRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

// MARK: - The sniffer

@Suite struct PageImagesSnifferTests {
    @Test func aPNGIsReadFromItsIHDR() {
        #expect(ImageSniffer.size(of: ImageFixtures.png(width: 48, height: 48)) == ImageSize(width: 48, height: 48, format: .png))
        #expect(ImageSniffer.size(of: ImageFixtures.png(width: 3, height: 700)) == ImageSize(width: 3, height: 700, format: .png))
    }

    @Test func aGIFIsReadFromItsLogicalScreen() {
        #expect(ImageSniffer.size(of: ImageFixtures.gif) == ImageSize(width: 1, height: 1, format: .gif))
        var gif87 = ImageFixtures.gif
        gif87[4] = UInt8(ascii: "7")
        gif87[6] = 0x2C
        gif87[7] = 0x01                                  // 300 wide
        #expect(ImageSniffer.size(of: gif87) == ImageSize(width: 300, height: 1, format: .gif))
    }

    @Test func aBaselineJPEGIsReadFromItsFrameHeaderAfterTheSegmentsBeforeIt() {
        #expect(ImageSniffer.size(of: ImageFixtures.jpeg) == ImageSize(width: 5, height: 3, format: .jpeg))
    }

    @Test func aProgressiveJPEGIsReadFromItsSOF2() {
        #expect(ImageSniffer.size(of: ImageFixtures.progressiveJPEG) == ImageSize(width: 2, height: 2, format: .jpeg))
    }

    @Test func aJPEGWithAnExifSegmentFillBytesAndAStandaloneMarkerIsRead() {
        let exif: [UInt8] = [0xFF, 0xE1, 0x00, 0x0A] + Array("Exif\0\0".utf8) + [0xFF, 0xD0]
        let bytes = [0xFF, 0xD8] + exif + [0xFF, 0xFF, 0xFF] + ImageFixtures.jpeg.dropFirst(2)
        #expect(ImageSniffer.size(of: bytes) == ImageSize(width: 5, height: 3, format: .jpeg))
    }

    @Test func webPIsReadFromItsLossyLosslessOrExtendedChunk() {
        #expect(ImageSniffer.size(of: ImageFixtures.lossyWebP) == ImageSize(width: 5, height: 3, format: .webp))
        #expect(ImageSniffer.size(of: ImageFixtures.losslessWebP) == ImageSize(width: 2, height: 2, format: .webp))
        #expect(ImageSniffer.size(of: ImageFixtures.extendedWebP) == ImageSize(width: 640, height: 480, format: .webp))
    }

    @Test func aBMPIsReadFromItsInfoHeaderATopDownOneToo() {
        #expect(ImageSniffer.size(of: ImageFixtures.bmp) == ImageSize(width: 4, height: 3, format: .bmp))
        var topDown = ImageFixtures.bmp
        topDown.replaceSubrange(22 ..< 26, with: ImageFixtures.le32(UInt32(bitPattern: -3)))
        #expect(ImageSniffer.size(of: topDown) == ImageSize(width: 4, height: 3, format: .bmp))
    }

    struct Truncation: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        /// Where the fields the sniffer reads end.
        var headerEnd: Int
        var testDescription: String { name }
    }

    /// Every prefix of a real image is nil until its header is in, and the whole size after.
    @Test(arguments: [
        Truncation(name: "PNG", bytes: ImageFixtures.png(width: 9, height: 4), headerEnd: 24),
        Truncation(name: "GIF", bytes: ImageFixtures.gif, headerEnd: 10),
        Truncation(name: "JPEG", bytes: ImageFixtures.jpeg, headerEnd: 98),   // SOF0 at 89
        Truncation(name: "progressive JPEG", bytes: ImageFixtures.progressiveJPEG, headerEnd: 98),
        Truncation(name: "lossy WebP", bytes: ImageFixtures.lossyWebP, headerEnd: 30),
        Truncation(name: "lossless WebP", bytes: ImageFixtures.losslessWebP, headerEnd: 25),
        Truncation(name: "extended WebP", bytes: ImageFixtures.extendedWebP, headerEnd: 30),
        Truncation(name: "BMP", bytes: ImageFixtures.bmp, headerEnd: 26),
    ])
    func aTruncatedImageIsNilUntilItsHeaderIsIn(_ image: Truncation) {
        let whole = ImageSniffer.size(of: image.bytes)
        #expect(whole != nil)
        for length in 0 ... image.bytes.count {
            let size = ImageSniffer.size(of: Array(image.bytes.prefix(length)))
            #expect(length < image.headerEnd ? size == nil : size == whole, "\(length) bytes")
        }
    }

    @Test func textAndEmptyInputAreNotImages() {
        #expect(ImageSniffer.size(of: []) == nil)
        #expect(ImageSniffer.size(of: Array("<!doctype html><title>Not found</title>".utf8)) == nil)
        #expect(ImageSniffer.size(of: Array(#"{"error":"no such avatar"}"#.utf8)) == nil)
    }

    @Test func hostileHeadersAreNilNotATrap() {
        let png = ImageFixtures.png(width: 1, height: 1)
        var zeroWide = png
        zeroWide.replaceSubrange(16 ..< 20, with: [0, 0, 0, 0])
        var huge = png
        huge.replaceSubrange(16 ..< 20, with: [0xFF, 0xFF, 0xFF, 0xFF])
        let soi: [UInt8] = [0xFF, 0xD8]
        let cases: [(String, [UInt8])] = [
            ("a PNG zero pixels wide", zeroWide),
            ("a PNG wider than 2³¹ − 1", huge),
            ("a PNG whose first chunk is not IHDR", Array(png.prefix(8)) + ImageFixtures.chunk("IDAT", [1, 2, 3])),
            ("a JPEG segment whose length is 0", soi + [0xFF, 0xE0, 0x00, 0x00, 0xFF, 0xC0]),
            ("a JPEG segment whose length is 1", soi + [0xFF, 0xE0, 0x00, 0x01, 0xFF, 0xC0]),
            ("a JPEG segment longer than the input", soi + [0xFF, 0xE0, 0xFF, 0xFF, 0x00]),
            ("a JPEG of fill bytes only", soi + [UInt8](repeating: 0xFF, count: 1000)),
            ("a JPEG whose scan comes before any frame", soi + [0xFF, 0xDA, 0x00, 0x08, 1, 1, 0, 0, 63, 0]),
            ("a JPEG frame header cut short", soi + [0xFF, 0xC0, 0x00, 0x11, 0x08, 0x00]),
            ("a JPEG frame header of height 0", soi + [0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x00, 0x00, 0x05, 1, 1, 0x11, 0]),
            ("a JPEG without a marker after SOI", soi + [0x00, 0x01, 0x02]),
            ("a BMP with an unknown header size", Array("BM".utf8) + [UInt8](repeating: 0, count: 12) + ImageFixtures.le32(7) + [UInt8](repeating: 1, count: 8)),
            ("a BMP of negative width", Array(ImageFixtures.bmp.prefix(18)) + ImageFixtures.le32(UInt32(bitPattern: Int32.min)) + ImageFixtures.le32(3)),
            ("a RIFF that is not WebP", Array("RIFF\0\0\0\0WAVEfmt ".utf8) + [UInt8](repeating: 0, count: 20)),
        ]
        for (name, bytes) in cases {
            #expect(ImageSniffer.size(of: bytes) == nil, "\(name)")
        }
    }

    /// Random bytes behind each format's signature, and random bytes alone: the sniffer
    /// answers something for each (it never traps), and a size it answers is positive.
    @Test func randomBytesBehindEverySignatureNeverTrap() {
        var random = ImageRandom(seed: 0x5EED)
        let signatures: [[UInt8]] = [
            [], [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8), Array("GIF89a".utf8),
            [0xFF, 0xD8], [0xFF, 0xD8, 0xFF], Array("RIFF\0\0\0\0WEBPVP8 ".utf8), Array("RIFF\0\0\0\0WEBPVP8L".utf8),
            Array("RIFF\0\0\0\0WEBPVP8X".utf8), Array("BM".utf8),
        ]
        var found = 0
        for _ in 0 ..< 20_000 {
            let signature = signatures.randomElement(using: &random)!
            let tail = (0 ..< Int.random(in: 0 ... 40, using: &random)).map { _ in UInt8.random(in: 0 ... 255, using: &random) }
            if let size = ImageSniffer.size(of: signature + tail) {
                #expect(size.width > 0 && size.height > 0)
                found += 1
            }
        }
        #expect(found > 0)                               // the headers were reached, not refused at the signature
    }

    @Test func aPageImageDescribesItselfInOneLine() {
        let size = ImageSize(width: 48, height: 48, format: .png)
        #expect(PageImage.none.description == "image: none")
        #expect(PageImage.loading(url: "http://a/b.png").description == "image: loading")
        #expect(PageImage.loaded(url: "u", bytes: [UInt8](repeating: 0, count: 1234), size: size).description
                == "image: 48×48 PNG, 1.2 KB")
        #expect(PageImage.failed(url: "u", reason: "HTTP 404").description == "image: failed (HTTP 404)")
        #expect(PageImage.none.url == nil)
        #expect(PageImage.failed(url: "http://a/b.png", reason: "x").url == "http://a/b.png")
        #expect(ImageSize(width: 5, height: 3, format: .webp).description == "5×3 WebP")
    }

    @Test func byteCountsAreShortAndDecimal() {
        let cases: [(Int, String)] = [
            (0, "0 bytes"), (1, "1 byte"), (999, "999 bytes"), (1000, "1.0 KB"), (1234, "1.2 KB"),
            (9_949, "9.9 KB"), (9_950, "10 KB"), (48_000, "48 KB"), (999_499, "999 KB"), (999_500, "1.0 MB"),
            (2_500_000, "2.5 MB"), (75_000_000, "75 MB"), (3_000_000_000, "3.0 GB"),
        ]
        for (bytes, text) in cases { #expect(ImageByteCount(bytes).description == text, "\(bytes)") }
        #expect(groupedDigits(0) == "0")
        #expect(groupedDigits(999) == "999")
        #expect(groupedDigits(1234) == "1,234")
        #expect(groupedDigits(1_000_000) == "1,000,000")
    }
}

// MARK: - The cache

@Suite struct PageImagesCacheTests {
    static let size = ImageSize(width: 1, height: 1, format: .png)

    func bytes(_ count: Int) -> [UInt8] { [UInt8](repeating: 7, count: count) }

    @Test func theLeastRecentlyUsedImageGoesFirst() {
        var cache = ImageCache(capacity: 30)
        for url in ["a", "b", "c"] { cache.insert(url: url, bytes: bytes(10), size: Self.size) }
        let read = cache.image(for: "a")                 // a is now the most recently used
        #expect(read?.bytes == bytes(10))
        cache.insert(url: "d", bytes: bytes(10), size: Self.size)
        #expect(cache.urlsByRecency == ["d", "a", "c"])
        #expect(!cache.contains("b"))
        #expect(cache.evictions == 1)
        cache.insert(url: "e", bytes: bytes(25), size: Self.size)   // needs all but 5 bytes: everything goes
        #expect(cache.urlsByRecency == ["e"])
        #expect(cache.totalBytes == 25)
        #expect(cache.evictions == 4)
    }

    @Test func anImageLargerThanTheCapacityIsNotCachedAndEvictsNothing() {
        var cache = ImageCache(capacity: 100)
        cache.insert(url: "a", bytes: bytes(60), size: Self.size)
        let cachedHuge = cache.insert(url: "huge", bytes: bytes(101), size: Self.size)
        #expect(!cachedHuge)
        #expect(cache.urlsByRecency == ["a"])
        #expect(cache.totalBytes == 60)
        let cachedExact = cache.insert(url: "exact", bytes: bytes(100), size: Self.size)
        #expect(cachedExact)                             // exactly the capacity fits
        #expect(cache.urlsByRecency == ["exact"])
    }

    @Test func aURLCachedAgainReplacesItsBytes() {
        var cache = ImageCache(capacity: 100)
        cache.insert(url: "a", bytes: bytes(10), size: Self.size)
        cache.insert(url: "b", bytes: bytes(10), size: Self.size)
        cache.insert(url: "a", bytes: bytes(30), size: ImageSize(width: 2, height: 2, format: .gif))
        #expect(cache.count == 2)
        #expect(cache.totalBytes == 40)
        #expect(cache.urlsByRecency == ["a", "b"])
        let read = cache.image(for: "a")
        #expect(read?.size.format == .gif)
        let cachedLarger = cache.insert(url: "a", bytes: bytes(101), size: Self.size)
        #expect(!cachedLarger)                           // too large: the old copy goes too
        #expect(cache.urlsByRecency == ["b"])
    }

    @Test func hitsAndMissesAreCounted() {
        var cache = ImageCache(capacity: 100)
        cache.insert(url: "a", bytes: bytes(10), size: Self.size)
        _ = cache.image(for: "a")
        _ = cache.image(for: "a")
        _ = cache.image(for: "b")
        #expect(cache.hits == 2)
        #expect(cache.misses == 1)
        #expect(cache.contains("a"))                     // not counted
        #expect(cache.hits == 2)
    }

    /// Random inserts, reads and removals against a plain list kept in order of use.
    @Test func randomUseMatchesAPlainLRUListAndStaysWithinCapacity() {
        var random = ImageRandom(seed: 42)
        var cache = ImageCache(capacity: 1_000)
        var model: [(url: String, count: Int)] = []      // the most recently used first
        for _ in 0 ..< 5_000 {
            let url = "u\(Int.random(in: 0 ..< 40, using: &random))"
            switch Int.random(in: 0 ..< 10, using: &random) {
            case 0 ..< 5:
                let count = Int.random(in: 1 ... 300, using: &random)
                cache.insert(url: url, bytes: bytes(count), size: Self.size)
                model.removeAll { $0.url == url }
                model.insert((url, count), at: 0)
                while model.reduce(0, { $0 + $1.count }) > 1_000 { model.removeLast() }
            case 5 ..< 9:
                let cached = cache.image(for: url)
                if let index = model.firstIndex(where: { $0.url == url }) {
                    #expect(cached?.bytes.count == model[index].count)
                    model.insert(model.remove(at: index), at: 0)
                } else {
                    #expect(cached == nil)
                }
            default:
                cache.remove(url)
                model.removeAll { $0.url == url }
            }
            #expect(cache.totalBytes <= 1_000)
            #expect(cache.urlsByRecency == model.map(\.url))
            #expect(cache.totalBytes == model.reduce(0) { $0 + $1.count })
        }
        cache.removeAll()
        #expect(cache.count == 0 && cache.totalBytes == 0 && cache.urlsByRecency.isEmpty)
    }
}

// MARK: - The loader

/// What completions received, in order, and the test's own checks of them.
final class ImageDeliveries {
    var received: [(page: Int, image: PageImage)] = []
    var completion: (Int, PageImage) -> Void { { [self] page, image in received.append((page, image)) } }
}

/// A fixture server over a folder of images, and a loader on the main actor.
@MainActor
final class ImageHarness {
    let scratch = Scratch()
    let server: FixtureServer
    let loader: ImageLoader
    let deliveries = ImageDeliveries()

    static let avatar = ImageFixtures.png(width: 48, height: 48)

    init(handler: FixtureServer.Handler? = nil, cacheCapacity: Int = 32 << 20, timeout: Duration = .seconds(5),
         maxImageBytes: Int = 8 << 20, files: [String: [UInt8]] = [:]) async throws {
        try FileManager.default.createDirectory(at: scratch.url, withIntermediateDirectories: true)
        var files = files
        if files["avatar.png"] == nil { files["avatar.png"] = Self.avatar }
        files["photo.jpg"] = ImageFixtures.jpeg
        files["page.html"] = Array("<!doctype html><p>Not an image</p>".utf8)
        for (name, bytes) in files {
            try Data(bytes).write(to: scratch.url.appendingPathComponent(name))
        }
        server = try await FixtureServer.start(root: scratch.url.path, handler: handler)
        loader = ImageLoader(transport: AsyncHTTPClientTransport(), cacheCapacity: cacheCapacity, timeout: timeout,
                             maxImageBytes: maxImageBytes, actor: { MainActor.shared })
    }

    func url(_ path: String) -> String { server.baseURL + path }

    /// Requests `path` for `page`, recording the completion.
    @discardableResult
    func request(_ page: Int, _ path: String?) -> PageImage {
        loader.request(page: page, url: path.map(url), completion: deliveries.completion)
    }

    /// Waits (at most two seconds) until `condition` holds.
    func eventually(_ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(2)
        while !condition() {
            if ContinuousClock.now > deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    func stop() async throws {
        loader.cancelAll()
        try await server.stop()
    }
}

@MainActor
@Suite(.serialized) struct PageImagesLoaderTests {
    @Test func aPNGLoadsWithItsSizeAndGoesIntoTheCache() async throws {
        let harness = try await ImageHarness()
        #expect(harness.request(3, "/avatar.png") == .loading(url: harness.url("/avatar.png")))
        #expect(harness.deliveries.received.isEmpty)     // never before request returns
        await harness.loader.settle()
        let received = harness.deliveries.received
        #expect(received.count == 1)
        #expect(received.first?.page == 3)
        #expect(received.first?.image == .loaded(url: harness.url("/avatar.png"), bytes: ImageHarness.avatar,
                                                 size: ImageSize(width: 48, height: 48, format: .png)))
        let statistics = harness.loader.statistics
        #expect(statistics.fetchesStarted == 1)
        #expect(statistics.completionsDelivered == 1)
        #expect(statistics.cachedImages == 1)
        #expect(statistics.cachedBytes == ImageHarness.avatar.count)
        // The server logs the status after its last byte, which may be after the client read it.
        #expect(await harness.eventually { harness.server.requests.first?.status == 200 })
        try await harness.stop()
    }

    @Test func aJPEGLoadsToo() async throws {
        let harness = try await ImageHarness()
        harness.request(0, "/photo.jpg")
        await harness.loader.settle()
        guard case .loaded(_, _, let size) = harness.deliveries.received.first?.image else {
            Issue.record("not loaded: \(harness.deliveries.received)")
            return
        }
        #expect(size == ImageSize(width: 5, height: 3, format: .jpeg))
        try await harness.stop()
    }

    @Test func aMissingImageFailsWithItsStatus() async throws {
        let harness = try await ImageHarness()
        harness.request(1, "/missing.png")
        await harness.loader.settle()
        #expect(harness.deliveries.received.map(\.image) == [.failed(url: harness.url("/missing.png"), reason: "HTTP 404")])
        #expect(harness.loader.statistics.cachedImages == 0)
        try await harness.stop()
    }

    @Test func aServerThatHangsFailsWithTheTimeout() async throws {
        let harness = try await ImageHarness(handler: { _ in .hang }, timeout: .milliseconds(200))
        harness.request(1, "/slow.png")
        await harness.loader.settle()
        #expect(harness.deliveries.received.map(\.image) == [.failed(url: harness.url("/slow.png"), reason: "timed out after 200ms")])
        try await harness.stop()
    }

    @Test func aPageThatIsNotAnImageFailsNamingItsTypeAndSize() async throws {
        let harness = try await ImageHarness()
        harness.request(1, "/page.html")
        await harness.loader.settle()
        let count = Array("<!doctype html><p>Not an image</p>".utf8).count
        #expect(harness.deliveries.received.map(\.image)
                == [.failed(url: harness.url("/page.html"), reason: "not an image (text/html, \(count) bytes)")])
        try await harness.stop()
    }

    @Test func anImageLargerThanTheLimitFails() async throws {
        let big = ImageFixtures.png(width: 100, height: 100)
        let harness = try await ImageHarness(maxImageBytes: 1_000, files: ["big.png": big])
        harness.request(1, "/big.png")
        await harness.loader.settle()
        #expect(harness.deliveries.received.map(\.image)
                == [.failed(url: harness.url("/big.png"), reason: "image larger than 1000 bytes (\(groupedDigits(big.count)) bytes)")])
        try await harness.stop()
    }

    @Test func noURLIsNoImageAndAURLThatIsNotHTTPFailsAtOnce() async throws {
        let harness = try await ImageHarness()
        let loader = harness.loader
        #expect(loader.request(page: 0, url: nil, completion: harness.deliveries.completion) == .none)
        #expect(loader.request(page: 1, url: "", completion: harness.deliveries.completion) == .none)
        for url in ["ftp://example.org/a.png", "file:///etc/passwd", "avatar.png", "http:", "https://", "javascript:alert(1)"] {
            #expect(loader.request(page: 2, url: url, completion: harness.deliveries.completion)
                    == .failed(url: url, reason: "not an http or https URL"), "\(url)")
        }
        #expect(loader.request(page: 3, url: harness.url("/avatar.png").uppercasingScheme, completion: harness.deliveries.completion)
                == .loading(url: harness.url("/avatar.png").uppercasingScheme))
        await loader.settle()
        #expect(harness.deliveries.received.map(\.page) == [3])
        #expect(harness.server.requestCount() == 1)
        try await harness.stop()
    }

    @Test func pagesThatWantTheSameURLShareOneRequest() async throws {
        let harness = try await ImageHarness(handler: { request in .delayed(.milliseconds(50), .file(request.path)) })
        for page in 0 ..< 3 { harness.request(page, "/avatar.png") }
        await harness.loader.settle()
        #expect(harness.server.requestCount(pathPrefix: "/avatar.png") == 1)
        #expect(harness.deliveries.received.map(\.page) == [0, 1, 2])
        #expect(harness.deliveries.received.allSatisfy { if case .loaded = $0.image { true } else { false } })
        #expect(harness.loader.statistics.fetchesStarted == 1)
        #expect(harness.loader.statistics.joined == 2)
        try await harness.stop()
    }

    @Test func cancellingThePageCancelsItsRequestAndItsCompletionNeverRuns() async throws {
        let harness = try await ImageHarness(handler: { request in .delayed(.seconds(5), .file(request.path)) })
        harness.request(4, "/avatar.png")
        #expect(await harness.eventually { harness.server.requestCount(pathPrefix: "/avatar.png") == 1 })
        harness.loader.cancel(page: 4)
        #expect(harness.loader.inFlight == 0)
        // The client gives up: the server's request ends there, without a status.
        #expect(await harness.eventually { harness.server.inFlight() == 0 })
        #expect(harness.server.requests.first?.status == nil)
        #expect(await harness.eventually { harness.loader.statistics.lateResultsDropped == 1 })
        #expect(harness.deliveries.received.isEmpty)
        let statistics = harness.loader.statistics
        #expect(statistics.cancellations == 1)
        #expect(statistics.fetchesCancelled == 1)
        #expect(statistics.deliveredToUnbound == 0)
        #expect(statistics.completionsDelivered == 0)
        try await harness.stop()
    }

    @Test func cancellingOneOfTwoPagesKeepsTheSharedFetchForTheOther() async throws {
        let harness = try await ImageHarness(handler: { request in .delayed(.milliseconds(50), .file(request.path)) })
        harness.request(1, "/avatar.png")
        harness.request(2, "/avatar.png")
        harness.loader.cancel(page: 1)
        await harness.loader.settle()
        #expect(harness.deliveries.received.map(\.page) == [2])
        #expect(harness.loader.statistics.fetchesCancelled == 0)
        #expect(harness.loader.statistics.deliveredToUnbound == 0)
        #expect(harness.server.requestCount() == 1)
        try await harness.stop()
    }

    @Test func aPageThatAsksForAnotherURLDropsTheFirst() async throws {
        let harness = try await ImageHarness(handler: { request in
            request.path == "/slow.png" ? .delayed(.seconds(5), .file("/avatar.png")) : .file(request.path)
        })
        harness.request(1, "/slow.png")
        harness.request(1, "/photo.jpg")
        await harness.loader.settle()
        #expect(harness.deliveries.received.map(\.page) == [1])
        #expect(harness.deliveries.received.first?.image.url == harness.url("/photo.jpg"))
        #expect(harness.loader.statistics.fetchesCancelled == 1)
        try await harness.stop()
    }

    @Test func aPageRequestedAgainForTheSameURLKeepsTheFetchAndAnswersTheNewCompletion() async throws {
        let harness = try await ImageHarness(handler: { request in .delayed(.milliseconds(50), .file(request.path)) })
        var first = 0
        _ = harness.loader.request(page: 1, url: harness.url("/avatar.png")) { _, _ in first += 1 }
        harness.request(1, "/avatar.png")
        await harness.loader.settle()
        #expect(first == 0)
        #expect(harness.deliveries.received.map(\.page) == [1])
        #expect(harness.server.requestCount() == 1)
        try await harness.stop()
    }

    @Test func aCompletionThatUnbindsAnotherWaitingPageStopsItsCompletion() async throws {
        let harness = try await ImageHarness()
        let loader = harness.loader
        var order: [Int] = []
        let url = harness.url("/avatar.png")
        _ = loader.request(page: 1, url: url) { page, _ in
            order.append(page)
            loader.cancel(page: 2)                       // the pager moved on while page 1 was drawn
        }
        _ = loader.request(page: 2, url: url) { page, _ in order.append(page) }
        await loader.settle()
        #expect(order == [1])
        #expect(loader.statistics.deliveredToUnbound == 0)
        try await harness.stop()
    }

    @Test func aPageBoundAgainAfterItsImageLoadedIsACacheHit() async throws {
        let harness = try await ImageHarness()
        harness.request(1, "/avatar.png")
        await harness.loader.settle()
        harness.loader.cancel(page: 1)                   // unbound after it loaded: nothing to cancel
        let again = harness.request(1, "/avatar.png")
        let elsewhere = harness.request(9, "/avatar.png")
        #expect(again == .loaded(url: harness.url("/avatar.png"), bytes: ImageHarness.avatar,
                                 size: ImageSize(width: 48, height: 48, format: .png)))
        #expect(elsewhere == again)
        #expect(harness.loader.inFlight == 0)
        #expect(harness.deliveries.received.count == 1)  // a hit calls no completion
        #expect(harness.server.requestCount() == 1)
        #expect(harness.loader.statistics.cacheHits == 2)
        #expect(harness.loader.statistics.cancellations == 0)
        try await harness.stop()
    }

    @Test func theCacheKeepsWithinItsCapacityInBytesDroppingTheLeastRecentlyUsed() async throws {
        let images = (0 ..< 3).map { ImageFixtures.png(width: 20, height: 20, grey: UInt8($0)) }
        let harness = try await ImageHarness(cacheCapacity: images[0].count * 2 + 10,
                                             files: ["0.png": images[0], "1.png": images[1], "2.png": images[2]])
        for index in 0 ..< 3 {
            harness.request(index, "/\(index).png")
            await harness.loader.settle()
        }
        let statistics = harness.loader.statistics
        #expect(statistics.cachedImages == 2)
        #expect(statistics.cachedBytes == images[1].count + images[2].count)
        #expect(statistics.cacheEvictions == 1)
        #expect(harness.loader.cache.urlsByRecency == [harness.url("/2.png"), harness.url("/1.png")])
        #expect(harness.request(7, "/2.png") == .loaded(url: harness.url("/2.png"), bytes: images[2],
                                                        size: ImageSize(width: 20, height: 20, format: .png)))
        #expect(harness.request(8, "/0.png") == .loading(url: harness.url("/0.png")))   // evicted: fetched again
        await harness.loader.settle()
        #expect(harness.server.requestCount(pathPrefix: "/0.png") == 2)
        #expect(harness.loader.cache.urlsByRecency == [harness.url("/0.png"), harness.url("/2.png")])
        try await harness.stop()
    }

    @Test func cancelAllStopsEveryFetchAndEveryCompletion() async throws {
        let harness = try await ImageHarness(handler: { _ in .hang })
        for page in 0 ..< 6 { harness.request(page, "/\(page % 3).png") }
        #expect(harness.loader.inFlight == 3)
        harness.loader.cancelAll()
        #expect(harness.loader.inFlight == 0)
        #expect(harness.loader.waitingPages.isEmpty)
        #expect(await harness.eventually { harness.loader.statistics.lateResultsDropped == 3 })
        #expect(harness.deliveries.received.isEmpty)
        #expect(harness.loader.statistics.fetchesCancelled == 3)
        #expect(harness.loader.statistics.cancellations == 6)
        try await harness.stop()
    }

    /// Pages bound, unbound and rebound at random while replies arrive after random delays:
    /// every completion is for a page bound now, for its latest request, with the URL it
    /// asked for; every page still bound when the dust settles got its one completion.
    @Test func aRandomWalkOfBindingAndUnbindingNeverAnswersAnUnboundPage() async throws {
        let names = (0 ..< 8).map { "\($0).png" }
        var files: [String: [UInt8]] = [:]
        for (index, name) in names.enumerated() { files[name] = ImageFixtures.png(width: 8 + index, height: 8) }
        let harness = try await ImageHarness(
            handler: { request in .delayed(.milliseconds(Int.random(in: 0 ... 15)), .file(request.path)) },
            cacheCapacity: 3 * files["7.png"]!.count, files: files)
        let loader = harness.loader
        var random = ImageRandom(seed: 7)
        var bound: [Int: (generation: Int, url: String?)] = [:]
        var expecting: [Int: Int] = [:]                  // page → the generation whose completion is due
        var generation = 0
        var problems: [String] = []
        var delivered = 0

        func bind(_ page: Int) {
            generation += 1
            let mine = generation
            let url: String? = switch Int.random(in: 0 ..< 10, using: &random) {
            case 0: nil
            default: harness.url("/" + names.randomElement(using: &random)!)
            }
            bound[page] = (mine, url)
            let state = loader.request(page: page, url: url) { page, image in
                delivered += 1
                guard let current = bound[page] else { return problems.append("page \(page) was answered while unbound") }
                if current.generation != mine { problems.append("page \(page) was answered for an earlier request") }
                if expecting[page] != mine { problems.append("page \(page) was answered twice or unasked") }
                if image.url != current.url { problems.append("page \(page) got \(image.url ?? "nil"), wanted \(current.url ?? "nil")") }
                if case .loaded = image {} else { problems.append("page \(page): \(image)") }
                expecting[page] = nil
            }
            switch state {
            case .loading: expecting[page] = mine
            case .none, .loaded: expecting[page] = nil
            case .failed(_, let reason): problems.append("page \(page) failed at once: \(reason)")
            }
        }

        for _ in 0 ..< 600 {
            let page = Int.random(in: 0 ..< 30, using: &random)
            switch Int.random(in: 0 ..< 20, using: &random) {
            case 0 ..< 9:
                bind(page)                               // bound, or bound again with another URL
            case 9 ..< 18:
                loader.cancel(page: page)
                bound[page] = nil
                expecting[page] = nil
            default:
                try await Task.sleep(for: .milliseconds(3))
            }
            #expect(Set(loader.waitingPages) == Set(expecting.keys))
        }
        await loader.settle()
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        #expect(expecting.isEmpty)                       // every page still bound got its image
        let statistics = loader.statistics
        #expect(statistics.deliveredToUnbound == 0)
        #expect(statistics.completionsDelivered == delivered)
        #expect(statistics.cachedBytes <= 3 * files["7.png"]!.count)
        #expect(harness.server.requestCount() <= statistics.fetchesStarted)   // some were cancelled before they were sent
        #expect(statistics.fetchesCancelled > 0 && statistics.cacheHits > 0 && statistics.joined > 0)
        try await harness.stop()
    }
}

private extension String {
    /// `http://…` → `HTTP://…`.
    var uppercasingScheme: String {
        guard let colon = firstIndex(of: ":") else { return self }
        return self[..<colon].uppercased() + self[colon...]
    }
}
