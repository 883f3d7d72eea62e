/// The image of one pager page, as the page shows it: no image, loading, loaded or failed.
///
/// ```swift
/// let loader = ImageLoader(transport: AsyncHTTPClientTransport(), actor: { MainActor.shared })
/// var image = loader.request(page: 3, url: tweet.imageURL) { page, image in
///     pages[page].image = image                      // .loaded or .failed, on the actor
/// }
/// print(image)                                       // image: loading
/// // later:                                             image: 48×48 PNG, 1.2 KB
/// ```
///
/// The bytes are the response body as received; `size` comes from its header alone
/// (`ImageSniffer`), so a host decodes the pixels only when it draws them.
public enum PageImage: Sendable, Equatable, CustomStringConvertible {
    /// The page has no image (its record names none).
    case none
    /// The image is being fetched.
    case loading(url: String)
    case loaded(url: String, bytes: [UInt8], size: ImageSize)
    /// The image could not be had: `HTTP 404`, `timed out after 10s`, `not an image (text/html, 1,234 bytes)`.
    case failed(url: String, reason: String)

    /// The image's URL; nil for `.none`.
    public var url: String? {
        switch self {
        case .none: nil
        case .loading(let url), .loaded(let url, _, _), .failed(let url, _): url
        }
    }

    /// One line for text frames: `image: none`, `image: loading`, `image: 48×48 PNG, 1.2 KB`,
    /// `image: failed (HTTP 404)`.
    public var description: String {
        switch self {
        case .none: "image: none"
        case .loading: "image: loading"
        case .loaded(_, let bytes, let size): "image: \(size), \(ImageByteCount(bytes.count))"
        case .failed(_, let reason): "image: failed (\(reason))"
        }
    }
}

/// A byte count in the short form of `PageImage.description`: `512 bytes`, `1.2 KB`,
/// `34 KB`, `2.5 MB` (decimal units, one decimal below ten).
struct ImageByteCount: CustomStringConvertible {
    var bytes: Int
    init(_ bytes: Int) { self.bytes = bytes }

    var description: String {
        if bytes == 1 { return "1 byte" }
        if bytes < 1000 { return "\(bytes) bytes" }
        var value = bytes
        for unit in ["KB", "MB", "GB"] {
            // Tenths of the unit, rounded half up; ten and above drop the decimal.
            let tenths = (value * 10 + 500) / 1000
            if tenths < 100 { return "\(tenths / 10).\(tenths % 10) \(unit)" }
            let whole = (value + 500) / 1000
            if whole < 1000 || unit == "GB" { return "\(whole) \(unit)" }
            value /= 1000
        }
        return "\(bytes) bytes"
    }
}

/// A count with thousands separated by commas, as in messages: `1,234`.
func groupedDigits(_ number: Int) -> String {
    let digits = String(number.magnitude)
    var grouped = ""
    for (offset, digit) in digits.enumerated() {
        if offset > 0, (digits.count - offset) % 3 == 0 { grouped.append(",") }
        grouped.append(digit)
    }
    return number < 0 ? "-" + grouped : grouped
}
