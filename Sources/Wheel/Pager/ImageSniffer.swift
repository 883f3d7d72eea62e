/// Tells an image's format and pixel size from its first bytes, without decoding it.
///
/// ```swift
/// ImageSniffer.size(of: pngBytes)            // ImageSize(width: 48, height: 48, format: .png)
/// ImageSniffer.size(of: Array("<html>".utf8)) // nil: not an image
/// ```
///
/// It reads headers only: PNG's `IHDR`, GIF's logical screen, the first JPEG frame header
/// (`SOF0`…`SOF15`, after skipping the segments before it), WebP's `VP8 `, `VP8L` or `VP8X`
/// chunk, BMP's info header. Every read is bounds-checked, so truncated or hostile input
/// gives nil, never a trap; a width or height of zero is not an image either.
public enum ImageSniffer {
    public static func size(of bytes: [UInt8]) -> ImageSize? {
        let reader = ByteReader(bytes)
        let sniffers: [(ByteReader) -> ImageSize?] = [png, gif, jpeg, webp, bmp]
        for sniffer in sniffers {
            if let size = sniffer(reader), size.width > 0, size.height > 0 { return size }
        }
        return nil
    }

    /// Signature, then the first chunk, which must be `IHDR`: its length (13), its type,
    /// then width and height as big-endian 32-bit numbers (at most 2³¹ − 1 by the spec).
    private static func png(_ reader: ByteReader) -> ImageSize? {
        guard reader.matches([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], at: 0),
              reader.matches([0, 0, 0, 13] + Array("IHDR".utf8), at: 8),
              let width = reader.uint32BE(at: 16), let height = reader.uint32BE(at: 20),
              width <= UInt32(Int32.max), height <= UInt32(Int32.max)
        else { return nil }
        return ImageSize(width: Int(width), height: Int(height), format: .png)
    }

    /// `GIF87a` or `GIF89a`, then the logical screen's width and height, little-endian.
    private static func gif(_ reader: ByteReader) -> ImageSize? {
        guard reader.matches(Array("GIF8".utf8), at: 0),
              reader.matches([UInt8(ascii: "7")], at: 4) || reader.matches([UInt8(ascii: "9")], at: 4),
              reader.matches([UInt8(ascii: "a")], at: 5),
              let width = reader.uint16LE(at: 6), let height = reader.uint16LE(at: 8)
        else { return nil }
        return ImageSize(width: Int(width), height: Int(height), format: .gif)
    }

    /// `SOI`, then marker segments up to the first frame header. A segment is `FF`, the
    /// marker (any number of `FF` fill bytes may come first), and for most markers a
    /// two-byte length that counts itself. A frame header (`SOF0`…`SOF15` less `DHT` C4,
    /// `JPG` C8 and `DAC` CC) holds the precision, then height and width, big-endian.
    private static func jpeg(_ reader: ByteReader) -> ImageSize? {
        guard reader.matches([0xFF, 0xD8], at: 0) else { return nil }
        var position = 2
        // Each turn moves `position` forward by at least two bytes, so this ends.
        while true {
            guard reader.byte(at: position) == 0xFF else { return nil }
            var markerAt = position + 1
            while reader.byte(at: markerAt) == 0xFF { markerAt += 1 }
            guard let marker = reader.byte(at: markerAt) else { return nil }
            let segment = markerAt + 1
            switch marker {
            case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                guard let length = reader.uint16BE(at: segment), length >= 7,
                      let height = reader.uint16BE(at: segment + 3), let width = reader.uint16BE(at: segment + 5)
                else { return nil }
                return ImageSize(width: Int(width), height: Int(height), format: .jpeg)
            case 0xD0...0xD7, 0x01:
                // RSTn and TEM stand alone, without a length.
                position = segment
            case 0xD8, 0xD9, 0xDA, 0x00:
                // A second SOI, the end of the image, or scan data before any frame
                // header: not a JPEG whose size can be read from its header.
                return nil
            default:
                guard let length = reader.uint16BE(at: segment), length >= 2 else { return nil }
                position = segment + Int(length)
            }
        }
    }

    /// `RIFF`, a size, `WEBP`, then the first chunk: `VP8 ` (lossy: a key frame's start
    /// code, then 14-bit width and height), `VP8L` (lossless: a signature byte, then
    /// width − 1 and height − 1 in 14 bits each) or `VP8X` (extended: the canvas's width − 1
    /// and height − 1 in 24 bits each).
    private static func webp(_ reader: ByteReader) -> ImageSize? {
        guard reader.matches(Array("RIFF".utf8), at: 0), reader.matches(Array("WEBP".utf8), at: 8) else { return nil }
        let data = 20
        if reader.matches(Array("VP8 ".utf8), at: 12) {
            guard reader.matches([0x9D, 0x01, 0x2A], at: data + 3),
                  let width = reader.uint16LE(at: data + 6), let height = reader.uint16LE(at: data + 8)
            else { return nil }
            return ImageSize(width: Int(width & 0x3FFF), height: Int(height & 0x3FFF), format: .webp)
        }
        if reader.matches(Array("VP8L".utf8), at: 12) {
            guard reader.byte(at: data) == 0x2F, let bits = reader.uint32LE(at: data + 1) else { return nil }
            return ImageSize(width: Int(bits & 0x3FFF) + 1, height: Int((bits >> 14) & 0x3FFF) + 1, format: .webp)
        }
        if reader.matches(Array("VP8X".utf8), at: 12) {
            guard let width = reader.uint24LE(at: data + 4), let height = reader.uint24LE(at: data + 7) else { return nil }
            return ImageSize(width: Int(width) + 1, height: Int(height) + 1, format: .webp)
        }
        return nil
    }

    /// `BM`, then at offset 14 the info header: its size, then width and height, 16-bit
    /// unsigned in the old 12-byte core header, 32-bit signed in the others (a negative
    /// height means rows run top-down).
    private static func bmp(_ reader: ByteReader) -> ImageSize? {
        guard reader.matches(Array("BM".utf8), at: 0), let headerSize = reader.uint32LE(at: 14) else { return nil }
        switch headerSize {
        case 12:
            guard let width = reader.uint16LE(at: 18), let height = reader.uint16LE(at: 20) else { return nil }
            return ImageSize(width: Int(width), height: Int(height), format: .bmp)
        case 16...124:
            guard let width = reader.uint32LE(at: 18), let height = reader.uint32LE(at: 22) else { return nil }
            let signedWidth = Int(Int32(bitPattern: width)), signedHeight = Int(Int32(bitPattern: height))
            guard signedWidth > 0 else { return nil }
            return ImageSize(width: signedWidth, height: abs(signedHeight), format: .bmp)
        default:
            return nil
        }
    }
}

/// An image's pixel size and format, read from its header.
public struct ImageSize: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public var format: ImageFormat

    public init(width: Int, height: Int, format: ImageFormat) {
        self.width = width
        self.height = height
        self.format = format
    }

    /// `48×48 PNG`.
    public var description: String { "\(width)×\(height) \(format.name)" }
}

public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
    case png, jpeg, gif, webp, bmp

    /// As people write it: `PNG`, `JPEG`, `GIF`, `WebP`, `BMP`.
    public var name: String {
        switch self {
        case .png: "PNG"
        case .jpeg: "JPEG"
        case .gif: "GIF"
        case .webp: "WebP"
        case .bmp: "BMP"
        }
    }
}

/// Reads numbers out of a byte array; every read past the end is nil.
private struct ByteReader {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func byte(at offset: Int) -> UInt8? {
        offset >= 0 && offset < bytes.count ? bytes[offset] : nil
    }

    /// Whether `expected` is at `offset`, whole.
    func matches(_ expected: [UInt8], at offset: Int) -> Bool {
        guard offset >= 0, offset <= bytes.count, expected.count <= bytes.count - offset else { return false }
        return bytes[offset ..< offset + expected.count].elementsEqual(expected)
    }

    /// `count` bytes from `offset`, the first the most significant (`bigEndian`) or the least.
    private func number(at offset: Int, count: Int, bigEndian: Bool) -> UInt32? {
        guard offset >= 0, offset <= bytes.count, count <= bytes.count - offset else { return nil }
        var value: UInt32 = 0
        for index in 0 ..< count {
            let byte = UInt32(bytes[offset + index])
            value |= bigEndian ? byte << (8 * (count - 1 - index)) : byte << (8 * index)
        }
        return value
    }

    func uint16BE(at offset: Int) -> UInt16? { number(at: offset, count: 2, bigEndian: true).map { UInt16($0) } }
    func uint16LE(at offset: Int) -> UInt16? { number(at: offset, count: 2, bigEndian: false).map { UInt16($0) } }
    func uint24LE(at offset: Int) -> UInt32? { number(at: offset, count: 3, bigEndian: false) }
    func uint32BE(at offset: Int) -> UInt32? { number(at: offset, count: 4, bigEndian: true) }
    func uint32LE(at offset: Int) -> UInt32? { number(at: offset, count: 4, bigEndian: false) }
}
