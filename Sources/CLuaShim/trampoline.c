/*
 * C functions that stand between Lua and Swift closures (DESIGN, bridge invariant 1).
 *
 * A trampoline marks the runtime unprotected (so the allocator cannot fail under a Swift
 * frame), calls the Swift dispatch function, and only after it has returned turns its
 * answer into a return, an error, an argument error or a yield. No Lua error can reach a
 * Swift frame: by the time anything is raised, the Swift frame is gone.
 *
 * A function's box pointer is kept by a small userdata (its keeper, an upvalue) whose
 * __gc hands the box back to Swift; see "finding the box" below for where the trampoline
 * reads it. A userdata object's pointer lives in the userdata itself, likewise released.
 */
#include <string.h>
#include "internal.h"

static wl_dispatch_fn dispatch_fn;
static wl_method_fn method_fn;
static wl_release_fn release_fn;
static char parked_marker;
static const char *const box_type = "wheel.box";

void wl_install(wl_dispatch_fn dispatch, wl_method_fn method, wl_release_fn release) {
    dispatch_fn = dispatch;
    method_fn = method;
    release_fn = release;
}

void wl_set_error_arg(lua_State *L, int arg) { wl_rt(L)->error_arg = arg; }
void *wl_parked_marker(void) { return &parked_marker; }

int wl_is_parked(lua_State *co) {
    /* A parked coroutine is suspended inside a trampoline (or a resume that passes the
       park on), whose frame keeps the marker at index 1 (see park below). */
    return lua_status(co) == LUA_YIELD && lua_gettop(co) >= 1
        && lua_touserdata(co, 1) == &parked_marker;
}

/* Resumed by the host with (ok, values...) after the awaited operation finished. */
static int resume_parked(lua_State *L, int status, lua_KContext ctx) {
    (void)status; (void)ctx;
    /* stack: marker, ok, values... */
    if (!lua_toboolean(L, 2)) {
        lua_settop(L, 3);
        return lua_error(L);
    }
    return lua_gettop(L) - 2;
}

static int park(lua_State *L) {
    lua_settop(L, 0);
    lua_pushlightuserdata(L, &parked_marker);   /* stays in this frame while suspended */
    lua_pushlightuserdata(L, &parked_marker);   /* yielded: tells resumers to pass it on */
    return lua_yieldk(L, 1, 0, resume_parked);
}

/* Turns a dispatch answer into Lua's terms. Runs after the Swift frame returned. */
static int finish_slow(lua_State *L, wl_runtime *rt, int n);

static inline __attribute__((always_inline)) int finish(lua_State *L, wl_runtime *rt, int n) {
    if (n >= 0 && (rt->limit == 0 || rt->used <= rt->limit)) return n;   /* the usual case */
    return finish_slow(L, rt, n);
}

static int finish_slow(lua_State *L, wl_runtime *rt, int n) {
    if (n >= 0) {
        wl_settle_memory(L);
        return n;
    }
    switch (n) {
    case WL_RETURN_ARGERROR:
        return luaL_argerror(L, rt->error_arg, lua_tostring(L, -1));
    case WL_RETURN_TYPEERROR:
        return luaL_typeerror(L, rt->error_arg, lua_tostring(L, -1));
    case WL_RETURN_AWAIT:
        if (!lua_isyieldable(L)) {
            if (lua_pushthread(L))             /* the main thread: no driver runs it */
                return luaL_error(L, "attempt to wait for an async host function outside a coroutine");
            return luaL_error(L, "attempt to wait for an async host function inside a call that "
                                 "cannot yield (a metamethod, a sort comparator, a gsub callback, "
                                 "or the main chunk of a required module)");
        }
        return park(L);
    default:
        return lua_error(L);
    }
}

/* ---- finding the box
 *
 * Each host function and method has a keeper: a full userdata whose __gc hands the box
 * back to Swift. Where the trampoline finds the box decides much of the cost of a call:
 *
 *   - pooled: the first WL_POOLED_FUNCTIONS functions and WL_POOLED_METHODS methods of a
 *     state each get a trampoline of their own, which reads its box from a fixed slot of
 *     the runtime record (two loads from L). Reading an upvalue instead goes through
 *     L->ci, the closure and the upvalue, a chain of dependent loads that cost a call
 *     about a sixth of its time. A pooled slot is never reused: once its keeper is
 *     collected it stays NULL, so a resurrected closure can only find "released".
 *   - otherwise: upvalue 1 is a light userdata pointing at the box slot inside the
 *     keeper (one load fewer than reading the slot through the full userdata).
 *
 * A finalizer that resurrects a function (possible in trusted mode, and while a state
 * closes) must not reach a freed box: either way the keeper clears the slot at __gc
 * before it releases the box, and the trampoline checks for NULL. */

typedef struct wl_keeper {
    void *box;       /* the box, when the slot is this one */
    void **slot;     /* where the trampoline finds the box: &box, or the runtime's pool */
} wl_keeper;

static int released(lua_State *L) {
    return luaL_error(L, "this host function was released (its state is closing or it was collected)");
}

/* Runs the Swift side of a call with the allocator unable to fail, then turns its answer
   into Lua's terms once the Swift frame has returned (invariant 1). */
static inline __attribute__((always_inline))
int enter_function(lua_State *L, wl_runtime *rt, void *box) {
    if (box == NULL) return released(L);
    int saved = rt->unprotected;
    rt->unprotected = 1;
    int n = dispatch_fn(L, box, rt->host);
    rt->unprotected = saved;
    return finish(L, rt, n);
}

static inline __attribute__((always_inline))
int enter_method(lua_State *L, wl_runtime *rt, void *box, void *object) {
    if (box == NULL) return released(L);
    int saved = rt->unprotected;
    rt->unprotected = 1;
    int n = method_fn(L, box, object, rt->host);
    rt->unprotected = saved;
    return finish(L, rt, n);
}

static int bad_self(lua_State *L, int metatable) {
    lua_getfield(L, metatable, "__name");
    return luaL_typeerror(L, 1, lua_tostring(L, -1));
}

static int call_host(lua_State *L) {
    wl_runtime *rt = wl_rt(L);
    return enter_function(L, rt, *(void **)lua_touserdata(L, lua_upvalueindex(1)));
}

/* Upvalues: box slot, metatable, keeper. `self` must be a userdata (lua_touserdata is
   NULL for anything else) whose metatable is the type's. */
static int call_method(lua_State *L) {
    wl_runtime *rt = wl_rt(L);
    void *object = NULL;
    void **block = lua_touserdata(L, 1);
    if (block && lua_getmetatable(L, 1)) {
        if (lua_rawequal(L, -1, lua_upvalueindex(2))) object = *block;
        lua_pop(L, 1);
    }
    if (object == NULL) return bad_self(L, lua_upvalueindex(2));
    return enter_method(L, rt, *(void **)lua_touserdata(L, lua_upvalueindex(1)), object);
}

/* The pooled trampolines. Methods compare the metatable by address (tables do not move;
   the closure's upvalue 1 keeps this one alive). */
#define WL_CALL_FUNCTION(n) \
    static int call_function_##n(lua_State *L) { \
        wl_runtime *rt = wl_rt(L); \
        return enter_function(L, rt, rt->pooled_functions[n]); \
    }
#define WL_CALL_METHOD(n) \
    static int call_method_##n(lua_State *L) { \
        wl_runtime *rt = wl_rt(L); \
        void *object = NULL; \
        void **block = lua_touserdata(L, 1); \
        if (block && lua_getmetatable(L, 1)) { \
            if (lua_topointer(L, -1) == rt->pooled_metatables[n]) object = *block; \
            lua_pop(L, 1); \
        } \
        if (object == NULL) return bad_self(L, lua_upvalueindex(1)); \
        return enter_method(L, rt, rt->pooled_methods[n], object); \
    }
#define WL_FUNCTION_ENTRY(n) call_function_##n,
#define WL_METHOD_ENTRY(n) call_method_##n,
/* Octal indices 00..077: eight at a time, so that the pool sizes in internal.h hold. */
#define WL_EIGHT(M, d) M(0##d##0) M(0##d##1) M(0##d##2) M(0##d##3) M(0##d##4) M(0##d##5) M(0##d##6) M(0##d##7)
#define WL_THIRTY_TWO(M) WL_EIGHT(M, 0) WL_EIGHT(M, 1) WL_EIGHT(M, 2) WL_EIGHT(M, 3)
#define WL_SIXTY_FOUR(M) WL_THIRTY_TWO(M) WL_EIGHT(M, 4) WL_EIGHT(M, 5) WL_EIGHT(M, 6) WL_EIGHT(M, 7)

WL_SIXTY_FOUR(WL_CALL_FUNCTION)
WL_THIRTY_TWO(WL_CALL_METHOD)

static const lua_CFunction function_trampolines[] = { WL_SIXTY_FOUR(WL_FUNCTION_ENTRY) };
static const lua_CFunction method_trampolines[] = { WL_THIRTY_TWO(WL_METHOD_ENTRY) };
_Static_assert(sizeof function_trampolines / sizeof *function_trampolines == WL_POOLED_FUNCTIONS, "pool size");
_Static_assert(sizeof method_trampolines / sizeof *method_trampolines == WL_POOLED_METHODS, "pool size");

static int release_box(lua_State *L) {
    wl_keeper *keeper = lua_touserdata(L, 1);
    if (keeper && keeper->slot && *keeper->slot) {
        void *box = *keeper->slot;
        *keeper->slot = NULL;
        release_fn(box);
    }
    return 0;
}

/* Pushes the keeper of `box`, whose box lives at `pool_slot` or, if that is NULL, in the
   keeper itself. */
static wl_keeper *push_keeper(lua_State *L, void *box, void **pool_slot) {
    wl_keeper *keeper = lua_newuserdatauv(L, sizeof *keeper, 0);
    keeper->box = box;
    keeper->slot = &keeper->box;
    if (luaL_newmetatable(L, box_type)) {
        lua_pushcfunction(L, release_box);
        lua_setfield(L, -2, "__gc");
        lua_pushboolean(L, 0);
        lua_setfield(L, -2, "__metatable");
    }
    lua_setmetatable(L, -2);
    if (pool_slot) {
        *pool_slot = box;
        keeper->slot = pool_slot;
    }
    return keeper;
}

void wl_push_function(lua_State *L, void *box) {
    wl_runtime *rt = wl_rt(L);
    if (rt->pooled_function_count < WL_POOLED_FUNCTIONS) {
        int n = rt->pooled_function_count++;
        push_keeper(L, box, &rt->pooled_functions[n]);
        lua_pushcclosure(L, function_trampolines[n], 1);       /* upvalue: keeper */
        return;
    }
    wl_keeper *keeper = push_keeper(L, box, NULL);
    lua_pushlightuserdata(L, keeper->slot);
    lua_rotate(L, -2, 1);
    lua_pushcclosure(L, call_host, 2);                          /* slot, keeper */
}

void wl_push_method(lua_State *L, void *box, int metatable_index) {
    metatable_index = lua_absindex(L, metatable_index);
    wl_runtime *rt = wl_rt(L);
    if (rt->pooled_method_count < WL_POOLED_METHODS) {
        int n = rt->pooled_method_count++;
        rt->pooled_metatables[n] = lua_topointer(L, metatable_index);
        lua_pushvalue(L, metatable_index);
        push_keeper(L, box, &rt->pooled_methods[n]);
        lua_pushcclosure(L, method_trampolines[n], 2);         /* metatable, keeper */
        return;
    }
    wl_keeper *keeper = push_keeper(L, box, NULL);
    lua_pushlightuserdata(L, keeper->slot);
    lua_pushvalue(L, metatable_index);
    lua_rotate(L, -3, -1);                                      /* slot, metatable, keeper */
    lua_pushcclosure(L, call_method, 3);
}

/* ---- userdata objects */

static int object_gc(lua_State *L) {
    void **slot = lua_touserdata(L, 1);
    if (slot && *slot) {
        void *object = *slot;
        *slot = NULL;                 /* a resurrected object reads as released */
        release_fn(object);
    }
    return 0;
}

/* __index when the type has properties: methods first, then getters. */
static int object_index(lua_State *L) {
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) != LUA_TNIL) return 1;
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(2)) == LUA_TNIL) return 1;   /* unknown: nil */
    lua_pushvalue(L, 1);
    lua_call(L, 1, 1);
    return 1;
}

static int object_newindex(lua_State *L) {
    lua_pushvalue(L, 2);
    if (lua_rawget(L, lua_upvalueindex(1)) == LUA_TNIL) {
        lua_getfield(L, lua_upvalueindex(2), "__name");
        return luaL_error(L, "cannot set field '%s' of %s", luaL_tolstring(L, 2, NULL),
                          lua_tostring(L, -2));
    }
    lua_pushvalue(L, 1);
    lua_pushvalue(L, 3);
    lua_call(L, 2, 0);
    return 0;
}

void wl_new_userdata_type(lua_State *L, const char *name) {
    lua_createtable(L, 0, 6);
    lua_pushstring(L, name);
    lua_setfield(L, -2, "__name");
    lua_pushcfunction(L, object_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");   /* scripts cannot reach or replace it */
}

void wl_set_userdata_members(lua_State *L, int metatable, int methods, int getters, int setters) {
    metatable = lua_absindex(L, metatable);
    methods = lua_absindex(L, methods);
    getters = getters ? lua_absindex(L, getters) : 0;
    setters = setters ? lua_absindex(L, setters) : 0;
    if (getters) {
        lua_pushvalue(L, methods);
        lua_pushvalue(L, getters);
        lua_pushcclosure(L, object_index, 2);
    } else {
        lua_pushvalue(L, methods);        /* methods only: a plain table is fastest */
    }
    lua_setfield(L, metatable, "__index");
    if (setters) {
        lua_pushvalue(L, setters);
        lua_pushvalue(L, metatable);
        lua_pushcclosure(L, object_newindex, 2);
        lua_setfield(L, metatable, "__newindex");
    }
}

void wl_push_object(lua_State *L, void *object, int metatable_index) {
    metatable_index = lua_absindex(L, metatable_index);
    void **slot = lua_newuserdatauv(L, sizeof(void *), 0);
    *slot = object;
    lua_pushvalue(L, metatable_index);
    lua_setmetatable(L, -2);
}

void *wl_to_object(lua_State *L, int index, int metatable_index) {
    metatable_index = lua_absindex(L, metatable_index);
    void *object = NULL;
    if (lua_type(L, index) == LUA_TUSERDATA && lua_getmetatable(L, index)) {
        if (lua_rawequal(L, -1, metatable_index)) object = *(void **)lua_touserdata(L, index);
        lua_pop(L, 1);
    }
    return object;
}
