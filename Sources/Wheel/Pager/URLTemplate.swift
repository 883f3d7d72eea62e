/// `url(template, record)`: a URL built from a template whose `{field}` placeholders are
/// filled with the record's values, percent-encoded; and the check every URL a pager
/// opens goes through.
///
/// ```lua
/// url("https://twitter.com/{from_user}/status/{id}", tweet)   -- https://twitter.com/ana%20b/status/17
/// url("https://example.org/u/{user.name}", record)            -- nested fields
/// ```
///
/// Values keep only the unreserved characters of RFC 3986 (`A-Z a-z 0-9 - . _ ~`); every
/// other byte of their UTF-8 is written `%XX`, so a value can never add a path segment,
/// a query or a scheme. A placeholder naming a field the record does not have is an
/// error, as is a template whose scheme is not http or https.
import Lua

enum URLTemplate {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// Fills `template` from `record`.
    static func fill(_ template: String, from record: LuaTable) throws(Failure) -> String {
        var result = ""
        var rest = Substring(template)
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            guard let close = rest[open...].firstIndex(of: "}") else {
                throw Failure(description: "the template has a '{' without its '}'")
            }
            let field = String(rest[rest.index(after: open)..<close])
            guard !field.isEmpty else { throw Failure(description: "the template has an empty placeholder '{}'") }
            guard let value = FieldPath(field).text(in: record) else {
                throw Failure(description: "the record has no field '\(field)' for the placeholder {\(field)}")
            }
            result += encode(value)
            rest = rest[rest.index(after: close)...]
        }
        result += rest
        if let problem = problem(with: result) { throw Failure(description: problem) }
        return result
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters.
    static func encode(_ value: String) -> String {
        var encoded = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                encoded.unicodeScalars.append("%")
                encoded.unicodeScalars.append(digits[Int(byte >> 4)])
                encoded.unicodeScalars.append(digits[Int(byte & 0xF)])
            }
        }
        return encoded
    }

    /// Why a pager must not open `url`, or nil: it must be an absolute http or https URL
    /// with a host, and hold no spaces or control characters.
    static func problem(with url: String) -> String? {
        guard let colon = url.firstIndex(of: ":") else {
            return "'\(shortened(url))' is not an absolute URL (it has no scheme)"
        }
        let scheme = url[..<colon].lowercased()
        guard scheme == "http" || scheme == "https" else {
            return "only http and https URLs are opened, not \(scheme.isEmpty ? "an empty scheme" : scheme + ":") URLs"
        }
        guard url[url.index(after: colon)...].hasPrefix("//"),
              url.dropFirst(scheme.count + 3).first.map({ $0 != "/" && $0 != "?" && $0 != "#" }) ?? false else {
            return "'\(shortened(url))' has no host"
        }
        if url.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value == 0x7F }) {
            return "'\(shortened(url))' holds spaces or control characters"
        }
        return nil
    }

    static func shortened(_ text: String) -> String {
        text.count > 60 ? text.prefix(57) + "..." : text
    }
}

/// A field of a record named by a path: `"from_user"`, or `"user.name"` for a nested one.
struct FieldPath: Sendable, Equatable {
    let keys: [String]

    init(_ path: String) {
        keys = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    /// The value as text: strings as they are, numbers as Lua prints them, booleans as
    /// `true`/`false`; nil for a missing field (and for tables and functions, which have
    /// no text). Read on the stack, with no reference made (`LuaTable.text(atPath:)`).
    func text(in record: LuaTable) -> String? {
        record.text(atPath: keys)
    }

    static func text(of value: LuaValue) -> String? {
        switch value {
        case .string(let text): text.description
        case .integer(let number): String(number)
        case .number(let number): ComponentCount.luaNumber(number)
        case .boolean(let flag): flag ? "true" : "false"
        default: nil
        }
    }
}
