/// Typed conversions between Swift values and the Lua stack.
///
/// ```swift
/// let scores: [String: Int] = try state.load("return { ann = 3, bob = 5 }", name: "s").call()
/// let f = try state.load("return function(list) return #list end", name: "n")
///     .call(returning: LuaFunction.self)
/// let n: Int = try f.call([1, 2, 3])             // arrays push as sequences
/// ```
///
/// Conversions push and read the stack directly; the hot path never builds a `LuaValue`.
/// Reading is strict and says what was wrong: a float with no integer representation is
/// not an `Int`, a string that is not UTF-8 is not a `String`, nil is not a `Bool` (read
/// `Bool?` to accept it). Numbers read as strings, as in Lua's own `tostring` rules.
import CLua
import CLuaShim

/// A Swift value that can be pushed onto the Lua stack as one Lua value.
public protocol LuaPushable {
    /// Pushes exactly one value onto `state`'s current thread. Pushing never raises: the
    /// bridge keeps the allocator from failing while Swift code runs (invariant 1).
    func push(to state: LuaState)
}

/// A Swift value that can be read from a slot of the Lua stack.
public protocol LuaReadable {
    /// Reads the value at `index` without changing the stack; throws `.typeMismatch`.
    static func read(from state: LuaState, at index: Int32) throws -> Self
}

public typealias LuaConvertible = LuaPushable & LuaReadable

extension LuaPushable {
    @inlinable func push(to state: LuaState, counting count: inout Int32) {
        push(to: state)
        count += 1
    }
}

@usableFromInline func mismatch(_ expected: String, _ state: LuaState, _ index: Int32) -> LuaError {
    .typeMismatch(expected: expected, actual: LuaValue.typeName(in: state, at: index), context: "")
}

// MARK: - Scalars

extension Bool: LuaConvertible {
    @inlinable public func push(to state: LuaState) { lua_pushboolean(state.handle, self ? 1 : 0) }
    @inlinable public static func read(from state: LuaState, at index: Int32) throws -> Bool {
        guard lua_type(state.handle, index) == LUA_TBOOLEAN else { throw mismatch("boolean", state, index) }
        return lua_toboolean(state.handle, index) != 0
    }
}

extension Int64: LuaConvertible {
    @inlinable public func push(to state: LuaState) { lua_pushinteger(state.handle, self) }
    @inlinable public static func read(from state: LuaState, at index: Int32) throws -> Int64 {
        let integer = wl_integer_at(state.handle, index)
        if integer.ok != 0 { return integer.value }
        throw integerMismatch(state, index)
    }

    @usableFromInline static func integerMismatch(_ state: LuaState, _ index: Int32) -> LuaError {
        let type = lua_type(state.handle, index)
        if type == LUA_TNUMBER || (type == LUA_TSTRING && lua_isnumber(state.handle, index) != 0) {
            let number = lua_tonumberx(state.handle, index, nil)
            return .typeMismatch(expected: "integer", actual: "\(number) (no integer representation)", context: "")
        }
        return mismatch("number", state, index)   // as luaL_checkinteger says it
    }
}

extension Int: LuaConvertible {
    @inlinable public func push(to state: LuaState) { lua_pushinteger(state.handle, lua_Integer(self)) }
    @inlinable public static func read(from state: LuaState, at index: Int32) throws -> Int {
        Int(try Int64.read(from: state, at: index))
    }
}

extension Int32: LuaConvertible {
    @inlinable public func push(to state: LuaState) { lua_pushinteger(state.handle, lua_Integer(self)) }
    public static func read(from state: LuaState, at index: Int32) throws -> Int32 {
        let value = try Int64.read(from: state, at: index)
        guard let narrow = Int32(exactly: value) else {
            throw LuaError.typeMismatch(expected: "32-bit integer", actual: "\(value) (out of range)", context: "")
        }
        return narrow
    }
}

extension Double: LuaConvertible {
    @inlinable public func push(to state: LuaState) { lua_pushnumber(state.handle, self) }
    @inlinable public static func read(from state: LuaState, at index: Int32) throws -> Double {
        var isNumber: Int32 = 0
        let value = lua_tonumberx(state.handle, index, &isNumber)
        guard isNumber != 0 else { throw mismatch("number", state, index) }
        return value
    }
}

extension String: LuaConvertible {
    @inlinable public func push(to state: LuaState) {
        let L = state.handle
        // NUL bytes travel: the length is explicit.
        if utf8.withContiguousStorageIfAvailable({ lua_pushlstring(L, $0.baseAddress, $0.count) }) == nil {
            var copy = self
            copy.withUTF8 { _ = lua_pushlstring(L, $0.baseAddress, $0.count) }
        }
    }

    @inlinable public static func read(from state: LuaState, at index: Int32) throws -> String {
        // Most text from scripts is short ASCII (titles, keys, labels): such a string is
        // built in registers, inline; everything else takes the general path.
        let string = wl_lstring_at(state.handle, index)
        if let bytes = string.bytes, string.length <= 15, let text = smallASCII(bytes, string.length) {
            return text
        }
        return try readAny(from: state, at: index)
    }

    /// Reads a call's result at `index`, a slot that belongs to the bridge: a number there
    /// may be converted in place, so one call into Lua does for the type check.
    @inlinable static func readResult(from state: LuaState, at index: Int32) throws -> String {
        let string = wl_tolstring(state.handle, index)
        if let bytes = string.bytes, string.length <= 15, let text = smallASCII(bytes, string.length) {
            return text
        }
        return try readAny(from: state, at: index)
    }

    @usableFromInline static func readAny(from state: LuaState, at index: Int32) throws -> String {
        let L = state.handle
        var length = 0
        if let pointer = wl_string_at(L, index, &length) {
            let bytes = UnsafeBufferPointer(
                start: UnsafeRawPointer(pointer).assumingMemoryBound(to: UInt8.self), count: length)
            // ASCII: one pass to check it, then a plain copy. Anything else goes through
            // full UTF-8 validation.
            if isASCII(bytes) {
                return String(unsafeUninitializedCapacity: length) { buffer in
                    buffer.baseAddress?.update(from: bytes.baseAddress!, count: length)   // nil only when empty
                    return length
                }
            }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw invalidUTF8(UnsafeRawBufferPointer(bytes))
            }
            return text
        }
        guard lua_type(L, index) == LUA_TNUMBER else { throw mismatch("string", state, index) }
        // Convert a copy: lua_tolstring changes a number in place, which would confuse
        // a table traversal that holds the original as its key.
        lua_pushvalue(L, index)
        defer { lua_settop(L, -2) }
        let bytes = UnsafeRawBufferPointer(start: lua_tolstring(L, -1, &length), count: length)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The `length` (at most 15) bytes at `start` as a small string, if they are ASCII;
    /// nil otherwise, or when this standard library lays out small strings differently.
    ///
    /// A small string is two words: bytes 0-7, then bytes 8-14 with a tag byte on top
    /// (immortal, ASCII, small, and the count: 0xE0 | count). Reading the bytes straight
    /// into those words costs a few loads; `String(unsafeUninitializedCapacity:)` copies
    /// them to a buffer and reads them back, which stalls on the store and then checks
    /// them once more. The loads stay inside the `length` bytes (they overlap instead of
    /// reading past the end).
    @inlinable @inline(__always)
    static func smallASCII(_ bytes: UnsafePointer<CChar>, _ length: Int) -> String? {
        #if _endian(little) && _pointerBitWidth(_64)
        guard smallStringLayoutIsKnown else { return nil }
        let start = UnsafeRawPointer(bytes)
        var low: UInt64 = 0
        var high: UInt64 = 0
        if length >= 8 {
            low = start.loadUnaligned(as: UInt64.self)
            if length > 8 {   // bytes 8..<length, from the last eight
                high = start.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self) &>> UInt64(8 * (16 - length))
            }
        } else if length >= 4 {
            let first = UInt64(start.loadUnaligned(as: UInt32.self))
            let last = UInt64(start.loadUnaligned(fromByteOffset: length - 4, as: UInt32.self))
            low = first | last &<< UInt64(8 * (length - 4))    // the overlap holds the same bytes
        } else if length > 0 {
            let bytes = start.assumingMemoryBound(to: UInt8.self)
            low = UInt64(bytes[0]) | UInt64(bytes[length / 2]) &<< UInt64(8 * (length / 2))
                | UInt64(bytes[length - 1]) &<< UInt64(8 * (length - 1))
        }
        guard (low | high) & 0x8080_8080_8080_8080 == 0 else { return nil }
        high |= UInt64(0xE0 &+ length) &<< 56
        // Moved out rather than bit-cast: a bit-cast copies the String, which costs a
        // (no-op) retain call for the immortal small string. The optimizer keeps the two
        // words in registers; nothing writes through the pointer, so no stack protector.
        var words = (low, high)
        return _withUnprotectedUnsafeMutablePointer(to: &words) {
            UnsafeMutableRawPointer($0).bindMemory(to: String.self, capacity: 1).move()
        }
        #else
        return nil
        #endif
    }

    /// Whether small strings are laid out as `smallASCII` builds them: checked on a
    /// literal, whose bits the compiler itself produces (and folds to a constant).
    @inlinable static var smallStringLayoutIsKnown: Bool {
        let bits = unsafeBitCast("abc" as String, to: (UInt64, UInt64).self)
        return bits.0 == 0x63_62_61 && bits.1 == 0xE3 &<< 56
    }

    /// Whether every byte is below 0x80, eight bytes at a time.
    @inlinable static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        var index = 0
        var bits: UInt64 = 0
        while index + 8 <= bytes.count {
            bits |= raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            index += 8
        }
        while index < bytes.count {
            bits |= UInt64(bytes[index])
            index += 1
        }
        return bits & 0x8080_8080_8080_8080 == 0
    }

    @usableFromInline static func invalidUTF8(_ bytes: UnsafeRawBufferPointer) -> LuaError {
        .typeMismatch(expected: "UTF-8 text", actual: "\(bytes.count) bytes that are not valid UTF-8", context: "")
    }
}

/// A Lua string as bytes. Lua strings may hold any bytes, NUL and invalid UTF-8 included;
/// this type keeps them all. Use `String` where text is expected.
public struct LuaString: Hashable, Sendable, LuaConvertible, ExpressibleByStringLiteral, CustomStringConvertible {
    public var bytes: [UInt8]

    public init(bytes: [UInt8]) { self.bytes = bytes }
    public init(_ text: String) { self.bytes = Array(text.utf8) }
    public init(stringLiteral text: String) { self.init(text) }

    /// The bytes as text, if they are valid UTF-8.
    public var string: String? { String(validating: bytes, as: UTF8.self) }
    public var description: String { string ?? String(decoding: bytes, as: UTF8.self) }

    public func push(to state: LuaState) {
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { _ = lua_pushlstring(state.handle, $0.baseAddress, $0.count) }
        }
    }

    public static func read(from state: LuaState, at index: Int32) throws -> LuaString {
        let L = state.handle
        let type = lua_type(L, index)
        guard type == LUA_TSTRING || type == LUA_TNUMBER else { throw mismatch("string", state, index) }
        lua_pushvalue(L, index)
        defer { lua_settop(L, -2) }
        var length = 0
        let bytes = UnsafeRawBufferPointer(start: lua_tolstring(L, -1, &length), count: length)
        return LuaString(bytes: Array(bytes))
    }
}

// MARK: - Containers

extension Optional: LuaPushable where Wrapped: LuaPushable {
    @inlinable public func push(to state: LuaState) {
        if let value = self { value.push(to: state) } else { lua_pushnil(state.handle) }
    }
}

extension Optional: LuaReadable where Wrapped: LuaReadable {
    @inlinable public static func read(from state: LuaState, at index: Int32) throws -> Wrapped? {
        if lua_type(state.handle, index) <= LUA_TNIL { return nil }   // none or nil
        return try Wrapped.read(from: state, at: index)
    }
}

/// Adds where in a nested value a mismatch happened: `[3]`, `["name"]`.
@usableFromInline func inContext<T>(_ step: @autoclosure () -> String, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch LuaError.typeMismatch(let expected, let actual, let context) {
        throw LuaError.typeMismatch(expected: expected, actual: actual, context: step() + context)
    }
}

extension Array: LuaPushable where Element: LuaPushable {
    public func push(to state: LuaState) {
        let L = state.handle
        lua_createtable(L, Int32(clamping: count), 0)
        for (offset, element) in enumerated() {
            _ = lua_checkstack(L, 2)
            element.push(to: state)
            lua_rawseti(L, -2, lua_Integer(offset + 1))
        }
    }
}

extension Array: LuaReadable where Element: LuaReadable {
    /// Reads the sequence `t[1]...t[#t]` (raw length, no metamethods).
    public static func read(from state: LuaState, at index: Int32) throws -> [Element] {
        let L = state.handle
        guard lua_type(L, index) == LUA_TTABLE else { throw mismatch("table", state, index) }
        guard lua_checkstack(L, 4) != 0 else { throw LuaError.runtime(ScriptFailure(message: "stack overflow")) }
        let table = lua_absindex(L, index)
        let count = Int(lua_rawlen(L, table))
        var result: [Element] = []
        result.reserveCapacity(count)
        for position in stride(from: 1, through: count, by: 1) {
            lua_rawgeti(L, table, lua_Integer(position))
            defer { lua_settop(L, -2) }
            result.append(try inContext("[\(position)]") { try Element.read(from: state, at: -1) })
        }
        return result
    }
}

extension Dictionary: LuaPushable where Key: LuaPushable, Value: LuaPushable {
    public func push(to state: LuaState) {
        let L = state.handle
        lua_createtable(L, 0, Int32(clamping: count))
        for (key, value) in self {
            _ = lua_checkstack(L, 3)
            key.push(to: state)
            // lua_rawset raises on a nil or NaN key; such keys (Optional.none, Double.nan)
            // cannot name a Lua table slot, so they are left out.
            let keyType = lua_type(L, -1)
            if keyType == LUA_TNIL || (keyType == LUA_TNUMBER && lua_tonumberx(L, -1, nil).isNaN) {
                lua_settop(L, -2)
                continue
            }
            value.push(to: state)
            lua_rawset(L, -3)
        }
    }
}

extension Dictionary: LuaReadable where Key: LuaReadable, Value: LuaReadable {
    /// Reads every key and value (raw, no metamethods).
    public static func read(from state: LuaState, at index: Int32) throws -> [Key: Value] {
        let L = state.handle
        guard lua_type(L, index) == LUA_TTABLE else { throw mismatch("table", state, index) }
        guard lua_checkstack(L, 6) != 0 else { throw LuaError.runtime(ScriptFailure(message: "stack overflow")) }
        let table = lua_absindex(L, index)
        let top = lua_gettop(L)
        defer { lua_settop(L, top) }
        var result: [Key: Value] = [:]
        lua_pushnil(L)
        while lua_next(L, table) != 0 {
            let key = try inContext("[key]") { try Key.read(from: state, at: -2) }
            let value = try inContext("[\(LuaValue.describeKey(in: state, at: -2))]") {
                try Value.read(from: state, at: -1)
            }
            result[key] = value
            lua_settop(L, -2)
        }
        return result
    }
}
