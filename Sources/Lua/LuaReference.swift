/// A Lua value held from Swift through the registry, released when Swift lets go.
///
/// ```swift
/// let table = try state.newTable()
/// try table.set("answer", 42)
/// // when `table` goes away, its registry slot is queued for release and freed at the
/// // state's next entry from its owner
/// ```
///
/// Releasing never touches the Lua state from `deinit`: the slot goes into a lock-guarded
/// queue that the owner drains when it next enters the state. A reference dropped on
/// another thread, or inside a finalizer, therefore never races the owner.
import CLua
import CLuaShim
import Synchronization

public class LuaReference {
    @usableFromInline let state: LuaState
    @usableFromInline let reference: Int32

    /// Takes the value on top of the state's stack and pops it.
    @usableFromInline init(popping state: LuaState) {
        self.state = state
        self.reference = luaL_ref(state.handle, wl_registry_index())
    }

    deinit { state.releases.release(reference) }

    /// Pushes the referenced value onto the state's stack.
    @inlinable func push() {
        wl_getref(state.handle, reference)
    }

    /// The value's Lua type name.
    public var typeName: String {
        guard !state.isClosed else { return "closed" }
        push()
        defer { lua_settop(state.handle, -2) }
        return String(cString: lua_typename(state.handle, lua_type(state.handle, -1)))
    }
}

/// Registry slots whose Swift references were let go, waiting for the owner to free them.
@usableFromInline final class ReleaseQueue: Sendable {
    private let slots = Mutex<(closed: Bool, references: [Int32])>((false, []))
    @usableFromInline let count = Atomic<Int>(0)

    @usableFromInline init() {}

    /// One relaxed load: the hot path pays nothing while the queue is empty.
    @inlinable var hasPending: Bool { count.load(ordering: .relaxed) != 0 }

    func release(_ reference: Int32) {
        guard reference > 0 else { return }   // LUA_NOREF and LUA_REFNIL hold no slot
        slots.withLock { state in
            guard !state.closed else { return }
            state.references.append(reference)
            count.add(1, ordering: .relaxed)
        }
    }

    @usableFromInline func take() -> [Int32] {
        slots.withLock { state in
            count.store(0, ordering: .relaxed)
            defer { state.references.removeAll(keepingCapacity: true) }
            return state.references
        }
    }

    func close() {
        slots.withLock { state in
            state.closed = true
            state.references = []
            count.store(0, ordering: .relaxed)
        }
    }
}
