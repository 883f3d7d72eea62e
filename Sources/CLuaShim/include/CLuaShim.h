/*
 * CLuaShim: the C side of Wheel's bridge. Every place where Lua may longjmp lives here,
 * so that no longjmp ever crosses a Swift frame (DESIGN, bridge invariant 1):
 *
 *   runtime.c    the per-state runtime record, the allocator with its memory ceiling
 *   deadline.c   the CPU deadline: a watchdog thread that arms an instruction hook only
 *                once a call's deadline has passed (invariant 4)
 *   trampoline.c C functions that call Swift closures and raise their errors afterwards
 *   protect.c    protected calls and the message handler that records where an error was
 *   sandbox.c    the safe base library: pcall, xpcall and coroutine wrappers that cannot
 *                swallow a limit, print, text-only load, collectgarbage("count")
 *
 * Swift reaches the Lua C API's macros through the static inline functions at the end.
 */
#ifndef WHEEL_CLUASHIM_H
#define WHEEL_CLUASHIM_H

#include <stddef.h>
#include <stdint.h>
#include <lua.h>
#include <lualib.h>
#include <lauxlib.h>

/* ---------------------------------------------------------------- runtime.c */

/* Which limit fired during the current host→script call (sticky until the call ends). */
enum {
    WL_FATAL_NONE = 0,
    WL_FATAL_MEMORY = 1,
    WL_FATAL_TIMEOUT = 2,
};

/* Where an error happened: recorded by the message handler, without allocating. */
#define WL_MAX_FRAMES 32
typedef struct wl_frame {
    char source[LUA_IDSIZE];   /* short source, as in "file.lua" or [string "..."] */
    char name[64];             /* function name if Lua knows one, else "" */
    char what[8];              /* "Lua", "C", "main" */
    char namewhat[16];         /* "global", "local", "method", "field", "upvalue" or "" */
    int line;                  /* current line, or -1 */
    int linedefined;           /* where the function starts */
} wl_frame;

typedef void (*wl_log_fn)(void *context, int level, const char *text, size_t length);

typedef struct wl_runtime wl_runtime;

/* Creates a state whose allocator counts bytes against `limit` (0: no ceiling) and whose
   main thread's extra space points at its runtime. Returns NULL if out of memory. */
lua_State *wl_newstate(size_t limit);
/* Closes the state, stops watching it and frees the runtime. */
void wl_close(lua_State *L);
wl_runtime *wl_runtime_of(lua_State *L);
/* The Swift object that owns the state (unretained), for trampolines to find it. */
void wl_set_host(lua_State *L, void *host);
void *wl_host(lua_State *L);

size_t wl_memory_used(lua_State *L);
size_t wl_memory_limit(lua_State *L);
void wl_set_memory_limit(lua_State *L, size_t limit);

/* The limit that fired during the current call, or WL_FATAL_NONE. */
int wl_fatal(lua_State *L);
void wl_set_log(lua_State *L, wl_log_fn fn, void *context);
void wl_log(lua_State *L, int level, const char *text, size_t length);

/* Frames captured by the message handler (or wl_capture_frames) at the last error. */
int wl_frame_count(lua_State *L);
const wl_frame *wl_frame_at(lua_State *L, int index);
/* Records the frames of `co` (a thread that died with an error) as the last error's. */
void wl_capture_frames(lua_State *L, lua_State *co);

/* ---------------------------------------------------------------- deadline.c */

/* Starts the outermost host→script call: arms the deadline `timeout_ns` from now
   (0: none) and resets the fatal flag. Nested calls keep the outer deadline.
   Returns the nesting depth before the call. */
int wl_call_begin(lua_State *L, int64_t timeout_ns);
/* Ends a call started with wl_call_begin; the outermost end disarms the deadline. */
void wl_call_end(lua_State *L, int depth);
/* Tells the runtime which thread runs Lua code now, so an expiring deadline reaches it. */
void wl_set_running(lua_State *L, lua_State *running);
lua_State *wl_running(lua_State *L);
/* Milliseconds of the deadline in force for messages, 0 if none. */
int64_t wl_timeout_ns(lua_State *L);

/* ---------------------------------------------------------------- trampoline.c */

/* What a Swift dispatch function returns instead of raising (invariant 1): */
#define WL_RETURN_ERROR     (-1)  /* the error value is on top of the stack */
#define WL_RETURN_ARGERROR  (-2)  /* message on top; argument index in wl_set_error_arg */
#define WL_RETURN_TYPEERROR (-3)  /* expected type name on top; argument index set */
#define WL_RETURN_AWAIT     (-4)  /* park this coroutine until the host resumes it */

/* Swift entry points, installed once per process by the Swift side. `box` is the
   opaque pointer given to wl_push_function; `self` is the userdata's object pointer;
   `host` is the state's host (wl_host), passed along so that Swift need not load it
   from the box. None of them is ever NULL. */
typedef int (*wl_dispatch_fn)(lua_State *L, void *box, void *host);
typedef int (*wl_method_fn)(lua_State *L, void *box, void *self, void *host);
typedef void (*wl_release_fn)(void *box);
void wl_install(wl_dispatch_fn dispatch, wl_method_fn method, wl_release_fn release);

void wl_set_error_arg(lua_State *L, int arg);

/* Pushes a Lua function that calls `dispatch(L, box)`. The box is released (by the
   release function) when Lua collects the function. */
void wl_push_function(lua_State *L, void *box);
/* Pushes a method: checks that argument 1 is a userdata whose metatable is the table at
   `metatable_index`, then calls `method(L, box, object)`. */
void wl_push_method(lua_State *L, void *box, int metatable_index);

/* Pushes a new metatable for a userdata type: __name, __gc releasing the object, and a
   __metatable that keeps scripts out. */
void wl_new_userdata_type(lua_State *L, const char *name);
/* Serves __index from the `methods` table (then the `getters` table of functions called
   with the object, if any) and __newindex from the `setters` table (0: read-only). */
void wl_set_userdata_members(lua_State *L, int metatable, int methods, int getters, int setters);
/* Pushes a userdata holding `object` (retained by the caller, released at __gc) with the
   metatable at `metatable_index`. */
void wl_push_object(lua_State *L, void *object, int metatable_index);
/* The object in the userdata at `index` if its metatable is the one at `metatable_index`. */
void *wl_to_object(lua_State *L, int index, int metatable_index);

/* The sentinel a parked coroutine yields, and a test for it on a suspended thread. */
void *wl_parked_marker(void);
int wl_is_parked(lua_State *co);

/* ---------------------------------------------------------------- protect.c */

/* lua_pcall with Wheel's message handler, which records the error's frames. */
int wl_pcall(lua_State *L, int nargs, int nresults);
/* The same, for a caller whose message handler already sits at `handler`, below the
   function (wl_prepare_call puts it there; no rotation). The handler stays on the stack. */
int wl_pcall_with_handler(lua_State *L, int nargs, int nresults, int handler);
/* The message handler of Wheel's protected calls: records where the error happened. */
int wl_message_handler(lua_State *L);
/* The hot path of a call from Swift in two steps. wl_prepare_call (inline: Swift calls
   the Lua API directly, without a C frame in between) makes room, pushes the message
   handler and the referenced function, and returns the previous top (-1 when the stack
   cannot grow); wl_invoke runs the protected call between wl_call_begin and
   wl_call_end, and wl_invoke_untimed is the same for a state without a deadline. */
static inline int wl_prepare_call(lua_State *L, int reference) {
    int top = lua_gettop(L);
    if (!lua_checkstack(L, 24)) return -1;
    lua_pushcclosure(L, wl_message_handler, 0);
    lua_rawgeti(L, LUA_REGISTRYINDEX, reference);
    return top;
}
int wl_invoke(lua_State *L, int nargs, int nresults, int handler, int64_t timeout_ns);
int wl_invoke_untimed(lua_State *L, int nargs, int nresults, int handler);
/* After a failed call of a run of plain lua_pcalls made between one wl_call_begin(L, 0)
   and its wl_call_end (a state with no deadline and no ceiling): clears what the failure
   recorded, as wl_call_begin does before each call from Swift. */
void wl_clear_failure(lua_State *L);
/* The bytes of the string at `index`, or NULL when the value is not a string (a number
   is not converted: lua_tolstring would change it in place). */
static inline const char *wl_string_at(lua_State *L, int index, size_t *length) {
    return lua_type(L, index) == LUA_TSTRING ? lua_tolstring(L, index, length) : NULL;
}
/* The same, returned by value: Swift then takes no local's address, and the hot paths
   that read arguments and results need no stack protector. */
typedef struct wl_lstring { const char *bytes; size_t length; } wl_lstring;
static inline wl_lstring wl_lstring_at(lua_State *L, int index) {
    wl_lstring s = { NULL, 0 };
    if (lua_type(L, index) == LUA_TSTRING) s.bytes = lua_tolstring(L, index, &s.length);
    return s;
}
/* lua_tolstring by value: for a slot the caller owns, where turning a number into a
   string in place is harmless (a call's result, popped right after). */
static inline wl_lstring wl_tolstring(lua_State *L, int index) {
    wl_lstring s = { NULL, 0 };
    s.bytes = lua_tolstring(L, index, &s.length);
    return s;
}
/* The integer at `index` (a number with an exact integer value, or a string convertible
   to one, as lua_tointegerx), and whether there was one. */
typedef struct wl_integer { lua_Integer value; int ok; } wl_integer;
static inline wl_integer wl_integer_at(lua_State *L, int index) {
    wl_integer i;
    i.value = lua_tointegerx(L, index, &i.ok);
    return i;
}
/* Loads a chunk, text only or also binary, without running it. */
int wl_load(lua_State *L, const char *bytes, size_t length, const char *chunkname, int text_only);
/* Protected forms of operations that may raise (metamethods, allocation). */
int wl_pgettable(lua_State *L, int table_index);      /* key on top → value on top */
int wl_psettable(lua_State *L, int table_index);      /* key, value on top → set */
int wl_ptolstring(lua_State *L, int index);           /* pushes luaL_tolstring's string */
/* Resumes `co`, keeping the runtime's notion of the running thread. */
int wl_resume(lua_State *L, lua_State *co, int nargs, int *nresults);

/* ---------------------------------------------------------------- sandbox.c */

/* Opens the standard libraries. With `sandboxed`, replaces the unsafe parts of the base
   library with safe versions, freezes the string metatable and removes string.dump.
   Pushes a table of the safe globals to copy into each script's environment. */
int wl_open_libraries(lua_State *L, int sandboxed);
/* Registers the `json` library (lua-cjson with strict settings) and pushes it. */
int wl_open_json(lua_State *L, int max_depth);
/* Pushes a new script environment built from the library table at `library_index`:
   sandboxed, a copy of it (library tables copied one level) with load, loadfile, dofile
   and require confined to `folder` (NULL: none); trusted, a table reading through to the
   library. Either way, what the script sets stays its own. */
int wl_new_environment(lua_State *L, int library_index, const char *folder, int trusted);

/* ---------------------------------------------------------------- macros for Swift */

static inline int wl_registry_index(void) { return LUA_REGISTRYINDEX; }
static inline int wl_upvalue_index(int i) { return lua_upvalueindex(i); }
static inline void wl_pop(lua_State *L, int n) { lua_settop(L, -(n) - 1); }
static inline void wl_newtable(lua_State *L) { lua_createtable(L, 0, 0); }
static inline int wl_isnoneornil(lua_State *L, int i) { return lua_type(L, i) <= 0; }
static inline void wl_insert(lua_State *L, int i) { lua_rotate(L, i, 1); }
static inline void wl_remove(lua_State *L, int i) { lua_rotate(L, i, -1); lua_settop(L, -2); }
static inline void wl_replace(lua_State *L, int i) { lua_copy(L, -1, i); lua_settop(L, -2); }
static inline void wl_pushglobaltable(lua_State *L) { lua_rawgeti(L, LUA_REGISTRYINDEX, LUA_RIDX_GLOBALS); }
static inline int wl_getref(lua_State *L, int ref) { return lua_rawgeti(L, LUA_REGISTRYINDEX, ref); }
static inline void wl_collect(lua_State *L) { lua_gc(L, LUA_GCCOLLECT, 0); }
static inline const char *wl_tostring(lua_State *L, int i, size_t *len) { return lua_tolstring(L, i, len); }

#endif
