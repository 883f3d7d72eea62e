/*
 * The script-facing library (DESIGN, bridge invariants 3 and 4).
 *
 * - pcall, xpcall, coroutine.resume and coroutine.wrap rethrow a limit that fired (memory
 *   ceiling, CPU deadline): a script cannot swallow one. They stay yieldable.
 * - coroutine.resume and coroutine.wrap pass a park on: when a coroutine waits for an
 *   async host function, its resumer yields too, up to the host's driver; when the host
 *   resumes the chain, the values travel back down. Scripts keep ordinary coroutine
 *   semantics and never block the host (invariant 5).
 * - Sandboxed states get a safe global set, a frozen string metatable, no string.dump,
 *   text-only load, collectgarbage("count") only, and require/dofile/loadfile that read
 *   Lua files under the script's folder only.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "internal.h"
#include <lua-cjson.h>

/* ---------------------------------------------------------------- pcall, xpcall */

/* A limit is not an error a script may handle: rethrow it. */
static int is_limit(lua_State *L, int status) {
    wl_runtime *rt = wl_rt(L);
    if (status == LUA_ERRMEM && rt->fatal == WL_FATAL_NONE) rt->fatal = WL_FATAL_MEMORY;
    return rt->fatal != WL_FATAL_NONE;
}

static int finish_pcall(lua_State *L, int status, lua_KContext extra) {
    if (status != LUA_OK && status != LUA_YIELD) {
        if (is_limit(L, status)) return lua_error(L);
        lua_pushboolean(L, 0);
        lua_pushvalue(L, -2);
        return 2;                              /* false, error */
    }
    return lua_gettop(L) - (int)extra;         /* true, results */
}

static int safe_pcall(lua_State *L) {
    luaL_checkany(L, 1);
    lua_pushboolean(L, 1);
    lua_insert(L, 1);
    int status = lua_pcallk(L, lua_gettop(L) - 2, LUA_MULTRET, 0, 0, finish_pcall);
    return finish_pcall(L, status, 0);
}

/* The script's message handler, called through this guard. When the deadline hook
   raises its error, Lua calls the handler from inside the hook, where hooks are off: a
   handler that loops would then never be stopped. Once a limit has fired, the guard
   hands the error on untouched instead; pcall's finish rethrows it anyway. */
static int guarded_handler(lua_State *L) {
    if (wl_rt(L)->fatal != WL_FATAL_NONE) return 1;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static int safe_xpcall(lua_State *L) {
    int n = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, guarded_handler, 1);
    lua_replace(L, 2);
    lua_pushboolean(L, 1);
    lua_pushvalue(L, 1);
    lua_rotate(L, 3, 2);                       /* f, handler, true, f, args... */
    int status = lua_pcallk(L, n - 2, LUA_MULTRET, 2, 2, finish_pcall);
    return finish_pcall(L, status, 2);
}

/* ---------------------------------------------------------------- coroutines */

static int resume_step(lua_State *L, lua_State *co, int nargs, int wrap);

/* The host resumed a parked chain: pass the values down to the coroutine we resumed. */
static int continue_resume(lua_State *L, int status, lua_KContext wrap) {
    (void)status;
    /* stack: marker, co, values... */
    lua_State *co = lua_tothread(L, 2);
    return resume_step(L, co, lua_gettop(L) - 2, (int)wrap);
}

static int resume_step(lua_State *L, lua_State *co, int nargs, int wrap) {
    if (!lua_checkstack(co, nargs)) return luaL_error(L, "too many arguments to resume");
    lua_xmove(L, co, nargs);
    int nres;
    wl_set_running(L, co);
    int status = lua_resume(co, L, nargs, &nres);
    wl_set_running(L, L);
    if (status == LUA_OK || status == LUA_YIELD) {
        if (status == LUA_YIELD && nres == 1 && lua_touserdata(co, -1) == wl_parked_marker()) {
            /* Parked: park this coroutine too, keeping the marker at index 1 and the
               coroutine to resume at index 2 (see wl_is_parked). */
            lua_pop(co, 1);
            lua_settop(L, 0);
            lua_pushlightuserdata(L, wl_parked_marker());
            lua_pushthread(co);
            lua_xmove(co, L, 1);
            lua_pushlightuserdata(L, wl_parked_marker());
            return lua_yieldk(L, 1, wrap, continue_resume);
        }
        if (!lua_checkstack(L, nres + 1)) {
            lua_pop(co, nres);
            return luaL_error(L, "too many results to resume");
        }
        if (!wrap) lua_pushboolean(L, 1);
        lua_xmove(co, L, nres);
        return nres + (wrap ? 0 : 1);
    }
    lua_xmove(co, L, 1);                       /* the error value */
    if (is_limit(L, status)) return lua_error(L);
    if (!wrap) {
        lua_pushboolean(L, 0);
        lua_insert(L, -2);
        return 2;                              /* false, error */
    }
    if (lua_type(L, -1) == LUA_TSTRING) {      /* wrap adds the caller's position */
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

static const char *const parked_message =
    "cannot resume a coroutine that is waiting for an async host function";

static int safe_resume(lua_State *L) {
    lua_State *co = lua_tothread(L, 1);
    luaL_argexpected(L, co, 1, "coroutine");
    if (wl_is_parked(co)) {                    /* like Lua's other non-resumable cases */
        lua_pushboolean(L, 0);
        lua_pushstring(L, parked_message);
        return 2;
    }
    return resume_step(L, co, lua_gettop(L) - 1, 0);
}

static int wrapped_call(lua_State *L) {
    lua_State *co = lua_tothread(L, lua_upvalueindex(1));
    if (wl_is_parked(co)) return luaL_error(L, "%s", parked_message);
    return resume_step(L, co, lua_gettop(L), 1);
}

static int safe_wrap(lua_State *L) {
    luaL_checktype(L, 1, LUA_TFUNCTION);
    lua_State *co = lua_newthread(L);
    lua_pushvalue(L, 1);
    lua_xmove(L, co, 1);
    lua_pushcclosure(L, wrapped_call, 1);
    return 1;
}

static int safe_close(lua_State *L) {
    lua_State *co = lua_tothread(L, 1);
    luaL_argexpected(L, co, 1, "coroutine");
    if (wl_is_parked(co))
        return luaL_error(L, "cannot close a coroutine that is waiting for an async host function");
    lua_settop(L, 1);
    lua_pushvalue(L, lua_upvalueindex(1));     /* the library's close */
    lua_insert(L, 1);
    /* Its pending __close handlers run on `co`: the deadline must be able to reach them
       there (invariant 4). */
    /* Lua 5.4.4 restarts its C-call count for each coroutine it closes, so __close
       handlers that close coroutines that close coroutines... would overflow the C
       stack. Count the nesting here instead. */
    wl_runtime *rt = wl_rt(L);
    if (rt->close_depth >= WL_MAX_CLOSE_DEPTH)
        return luaL_error(L, "coroutine.close nested too deeply (more than %d levels)", WL_MAX_CLOSE_DEPTH);
    lua_Debug ar;
    int closable = co != L && (lua_status(co) != LUA_OK || !lua_getstack(co, 0, &ar));
    if (closable) wl_set_running(L, co);       /* not running, not resuming another */
    rt->close_depth++;
    int ok = lua_pcall(L, 1, LUA_MULTRET, 0);
    rt->close_depth--;
    wl_set_running(L, L);
    if (ok != LUA_OK) {
        is_limit(L, ok);
        return lua_error(L);
    }
    if (wl_rt(L)->fatal != WL_FATAL_NONE) return lua_error(L);   /* a limit hit a __close */
    return lua_gettop(L);
}

/* ---------------------------------------------------------------- C loops */

/* The deadline hook runs between Lua instructions; a C function's own loop never sees
   it. The library functions whose loops are bounded by neither memory nor a small
   constant are replaced by these. */

/* string.rep: Lua's loops n times even when each copy is empty (string.rep('', 2^62)
   never ends), and a result larger than 2 GiB is a plain error. Here an empty result
   is immediate, and a result larger than the memory ceiling allows is the memory error,
   as any other allocation would be. */
static int safe_rep(lua_State *L) {
    size_t length, separator_length;
    luaL_checklstring(L, 1, &length);
    lua_Integer n = luaL_checkinteger(L, 2);
    luaL_optlstring(L, 3, "", &separator_length);
    if (n <= 0 || length + separator_length == 0) {
        lua_pushliteral(L, "");
        return 1;
    }
    wl_runtime *rt = wl_rt(L);
    if (rt->limit != 0) {
        /* Computed in floating point: exact enough, and it cannot overflow. */
        double total = (double)n * (double)length + (double)(n - 1) * (double)separator_length;
        double room = rt->used < rt->limit ? (double)(rt->limit - rt->used) : 0;
        if (total > room) {
            /* Ask the allocator for more than the ceiling allows: Lua collects, finds
               it still does not fit, and raises its memory error. */
            lua_newuserdatauv(L, rt->limit + 1, 0);
        }
    }
    lua_settop(L, 3);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, 3, 1);
    return 1;
}

/* table.move: the same contract as Lua's, with a deadline check every few thousand
   elements (table.move({}, 1, math.maxinteger - 1, 2) moves nils for ever). */
static int safe_move(lua_State *L) {
    lua_Integer first = luaL_checkinteger(L, 2);
    lua_Integer last = luaL_checkinteger(L, 3);
    lua_Integer to = luaL_checkinteger(L, 4);
    int target = lua_isnoneornil(L, 5) ? 1 : 5;
    if (lua_type(L, 1) != LUA_TTABLE && !luaL_getmetafield(L, 1, "__index"))
        return luaL_typeerror(L, 1, "table");
    if (target != 1 && lua_type(L, target) != LUA_TTABLE && !luaL_getmetafield(L, target, "__newindex"))
        return luaL_typeerror(L, target, "table");
    lua_settop(L, 5);
    if (last >= first) {
        luaL_argcheck(L, first > 0 || last < LUA_MAXINTEGER + first, 3, "too many elements to move");
        lua_Integer count = last - first + 1;
        luaL_argcheck(L, to <= LUA_MAXINTEGER - count + 1, 4, "destination wrap around");
        /* Forwards unless the ranges overlap with the destination after the source. */
        int forwards = to > last || to <= first || (target != 1 && !lua_compare(L, 1, target, LUA_OPEQ));
        for (lua_Integer i = 0; i < count; i++) {
            if ((i & 4095) == 4095) wl_check_deadline(L);
            lua_Integer k = forwards ? i : count - 1 - i;
            lua_geti(L, 1, first + k);
            lua_seti(L, target, to + k);
        }
    }
    lua_pushvalue(L, target);
    return 1;
}

static void replace_loops(lua_State *L, int G) {
    lua_getfield(L, G, "string");
    lua_getfield(L, -1, "rep");
    lua_pushcclosure(L, safe_rep, 1);
    lua_setfield(L, -2, "rep");
    lua_pop(L, 1);
    lua_getfield(L, G, "table");
    lua_pushcfunction(L, safe_move);
    lua_setfield(L, -2, "move");
    lua_pop(L, 1);
}

/* ---------------------------------------------------------------- print, collectgarbage */

static int safe_print(lua_State *L) {
    int n = lua_gettop(L);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (int i = 1; i <= n; i++) {
        if (i > 1) luaL_addchar(&b, '\t');
        luaL_tolstring(L, i, NULL);
        luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
    size_t length;
    const char *text = lua_tolstring(L, -1, &length);
    wl_log(L, 1, text, length);
    return 0;
}

static int safe_collectgarbage(lua_State *L) {
    const char *option = luaL_optstring(L, 1, "collect");
    if (strcmp(option, "count") != 0)
        return luaL_error(L, "collectgarbage('%s') is not allowed in the sandbox (only 'count')", option);
    lua_pushnumber(L, (lua_Number)lua_gc(L, LUA_GCCOUNT, 0) + (lua_Number)lua_gc(L, LUA_GCCOUNTB, 0) / 1024);
    return 1;
}

/* ---------------------------------------------------------------- frozen views */

static int deny_write(lua_State *L) {
    return luaL_error(L, "%s is shared by every script and cannot be changed",
                      lua_tostring(L, lua_upvalueindex(1)));
}

/* Pushes a userdata that reads through to the table on top (which it pops) and refuses
   writes. A userdata, not a table, so that rawset cannot reach around it either. */
static void push_read_only(lua_State *L, const char *what) {
    int target = lua_gettop(L);
    lua_newuserdatauv(L, 0, 0);
    lua_createtable(L, 0, 4);
    lua_pushvalue(L, target);
    lua_setfield(L, -2, "__index");
    lua_pushstring(L, what);
    lua_pushcclosure(L, deny_write, 1);
    lua_setfield(L, -2, "__newindex");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_pushstring(L, what);
    lua_setfield(L, -2, "__name");
    lua_setmetatable(L, -2);
    lua_remove(L, target);
}

/* getmetatable("") returns a read-only view whose __index is a read-only view of the
   string library: the real metatable and library stay out of every script's reach. */
static void freeze_string_metatable(lua_State *L) {
    lua_pushliteral(L, "");
    lua_getmetatable(L, -1);                   /* "", mt */
    lua_createtable(L, 0, 1);                  /* the view's fields */
    lua_getfield(L, -2, "__index");
    push_read_only(L, "the string library");
    lua_setfield(L, -2, "__index");
    push_read_only(L, "the string metatable");
    lua_setfield(L, -2, "__metatable");        /* mt.__metatable = view */
    lua_pop(L, 2);
}

/* ---------------------------------------------------------------- libraries */

static void copy_fields(lua_State *L, int from, int to, const char *const names[]) {
    for (int i = 0; names[i]; i++) {
        lua_getfield(L, from, names[i]);
        lua_setfield(L, to, names[i]);
    }
}

static const char *const safe_base[] = {
    "assert", "error", "getmetatable", "ipairs", "next", "pairs", "rawequal", "rawget",
    "rawlen", "rawset", "select", "setmetatable", "tonumber", "tostring", "type",
    "_VERSION", NULL
};
static const char *const safe_os[] = { "clock", "date", "difftime", "time", NULL };
static const char *const whole_libraries[] = { "string", "table", "math", "utf8", NULL };
static const char *const coroutine_names[] = {
    "create", "isyieldable", "running", "status", "yield", NULL
};

/* The coroutine table with the wrappers above, built from the library's `from`. */
static void push_coroutine_library(lua_State *L, int from) {
    lua_createtable(L, 0, 8);
    copy_fields(L, from, lua_gettop(L), coroutine_names);
    lua_pushcfunction(L, safe_resume);
    lua_setfield(L, -2, "resume");
    lua_pushcfunction(L, safe_wrap);
    lua_setfield(L, -2, "wrap");
    lua_getfield(L, from, "close");
    lua_pushcclosure(L, safe_close, 1);
    lua_setfield(L, -2, "close");
}

/* Lua runs finalizers with hooks off, so the deadline could never stop a __gc that
   loops: sandboxed scripts cannot set one. Lua marks an object for finalization only
   when its metatable already has __gc at setmetatable time, so checking here is enough. */
static int safe_setmetatable(lua_State *L) {
    if (lua_type(L, 2) == LUA_TTABLE) {
        lua_pushliteral(L, "__gc");
        int has_gc = lua_rawget(L, 2) != LUA_TNIL;
        lua_pop(L, 1);
        if (has_gc)
            return luaL_argerror(L, 2, "__gc metamethods are not allowed in the sandbox: "
                                       "finalizers run where the deadline cannot stop them");
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    return 1;
}

static void set_limit_proof_base(lua_State *L, int table) {
    lua_pushcfunction(L, safe_pcall);
    lua_setfield(L, table, "pcall");
    lua_pushcfunction(L, safe_xpcall);
    lua_setfield(L, table, "xpcall");
    lua_pushcfunction(L, safe_print);
    lua_setfield(L, table, "print");
}

int wl_open_libraries(lua_State *L, int sandboxed) {
    luaL_openlibs(L);
    lua_pushglobaltable(L);
    int G = lua_gettop(L);
    /* Even trusted scripts cannot swallow a limit or print around the host's log. */
    set_limit_proof_base(L, G);
    replace_loops(L, G);
    lua_getfield(L, G, "coroutine");
    push_coroutine_library(L, lua_gettop(L));
    lua_setfield(L, G, "coroutine");
    lua_pop(L, 1);
    if (!sandboxed) {
        lua_pushvalue(L, G);                   /* trusted: the whole global table */
        lua_remove(L, G);
        return 1;
    }
    lua_getfield(L, G, "string");
    lua_pushnil(L);
    lua_setfield(L, -2, "dump");
    lua_pop(L, 1);
    freeze_string_metatable(L);

    lua_createtable(L, 0, 32);
    int safe = lua_gettop(L);
    copy_fields(L, G, safe, safe_base);
    copy_fields(L, G, safe, whole_libraries);
    set_limit_proof_base(L, safe);
    lua_getfield(L, G, "setmetatable");
    lua_pushcclosure(L, safe_setmetatable, 1);
    lua_setfield(L, safe, "setmetatable");
    lua_getfield(L, G, "coroutine");
    lua_setfield(L, safe, "coroutine");
    lua_pushcfunction(L, safe_collectgarbage);
    lua_setfield(L, safe, "collectgarbage");
    lua_getfield(L, G, "os");
    lua_createtable(L, 0, 4);
    copy_fields(L, -2, lua_gettop(L), safe_os);
    lua_setfield(L, safe, "os");
    lua_pop(L, 1);
    lua_remove(L, G);
    return 1;
}

/* ---------------------------------------------------------------- json */

/* cjson 2.1 decodes every number as a float; JSON does not tell 2 from 2.0, and a
   script expects page 2, not 2.0. Integral values that a double holds exactly become
   integers, in place, through the whole decoded value. */
static void integers_in_place(lua_State *L, int index) {
    luaL_checkstack(L, 4, "decoded json");
    lua_pushnil(L);
    while (lua_next(L, index)) {
        if (lua_type(L, -1) == LUA_TTABLE) {
            integers_in_place(L, lua_gettop(L));
        } else if (lua_type(L, -1) == LUA_TNUMBER && !lua_isinteger(L, -1)) {
            lua_Number x = lua_tonumber(L, -1);
            if (x >= -9007199254740992.0 && x <= 9007199254740992.0 && x == (lua_Number)(lua_Integer)x) {
                lua_pushvalue(L, -2);
                lua_pushinteger(L, (lua_Integer)x);
                lua_rawset(L, index);          /* replacing a field keeps lua_next valid */
            }
        }
        lua_pop(L, 1);
    }
}

static int json_decode(lua_State *L) {
    lua_settop(L, 1);
    lua_pushvalue(L, lua_upvalueindex(1));     /* the private instance's decode */
    lua_insert(L, 1);
    lua_call(L, 1, 1);
    if (lua_type(L, 1) == LUA_TTABLE) {
        integers_in_place(L, 1);               /* decode_max_depth bounds the recursion */
    } else if (lua_type(L, 1) == LUA_TNUMBER) {
        lua_Number x = lua_tonumber(L, 1);
        if (x >= -9007199254740992.0 && x <= 9007199254740992.0 && x == (lua_Number)(lua_Integer)x)
            lua_pushinteger(L, (lua_Integer)x);
    }
    return 1;
}

int wl_open_json(lua_State *L, int max_depth) {
    luaL_requiref(L, "cjson", luaopen_cjson, 0);
    /* A private instance, so that these settings belong to Wheel alone. */
    lua_getfield(L, -1, "new");
    lua_call(L, 0, 1);
    lua_remove(L, -2);
    int json = lua_gettop(L);
    static const char *const invalid_numbers[] = { "decode_invalid_numbers", "encode_invalid_numbers" };
    for (int i = 0; i < 2; i++) {              /* no NaN, Infinity or hex numbers */
        lua_getfield(L, json, invalid_numbers[i]);
        lua_pushboolean(L, 0);
        lua_call(L, 1, 0);
    }
    static const char *const depths[] = { "decode_max_depth", "encode_max_depth" };
    for (int i = 0; i < 2; i++) {
        lua_getfield(L, json, depths[i]);
        lua_pushinteger(L, max_depth);
        lua_call(L, 1, 0);
    }
    /* Scripts get encode, decode and null only: the configuration functions would let
       one script change how every other script's json behaves. */
    lua_createtable(L, 0, 3);
    lua_getfield(L, json, "encode");
    lua_setfield(L, -2, "encode");
    lua_getfield(L, json, "decode");
    lua_pushcclosure(L, json_decode, 1);
    lua_setfield(L, -2, "decode");
    lua_getfield(L, json, "null");
    lua_setfield(L, -2, "null");
    lua_remove(L, json);
    return 1;
}

/* ---------------------------------------------------------------- script environments */

/* Upvalues of load, dofile, loadfile and require: 1 the environment, 2 the folder (a
   string, or nil when the script did not come from a file), 3 the table of loaded
   modules, 4 whether binary chunks may load (trusted). */
#define ENV_UPVALUE 1
#define FOLDER_UPVALUE 2
#define LOADED_UPVALUE 3
#define BINARY_UPVALUE 4

static const char *load_mode(lua_State *L) {
    return lua_toboolean(L, lua_upvalueindex(BINARY_UPVALUE)) ? "bt" : "t";
}

/* Sets the loaded chunk's _ENV to `env_index`, or to the script's environment. */
static void set_chunk_env(lua_State *L, int env_index) {
    if (env_index) lua_pushvalue(L, env_index);
    else lua_pushvalue(L, lua_upvalueindex(ENV_UPVALUE));
    if (!lua_setupvalue(L, -2, 1)) lua_pop(L, 1);
}

static int script_load(lua_State *L) {
    int env = lua_isnone(L, 4) ? 0 : 4;
    /* Sandboxed scripts load text only, whatever mode they ask for; trusted ones choose. */
    const char *mode = strchr(load_mode(L), 'b') ? luaL_optstring(L, 3, "bt") : "t";
    int status;
    if (lua_type(L, 1) == LUA_TSTRING) {
        size_t length;
        const char *source = lua_tolstring(L, 1, &length);
        const char *name = luaL_optstring(L, 2, source);
        status = luaL_loadbufferx(L, source, length, name, mode);
    } else {
        luaL_checktype(L, 1, LUA_TFUNCTION);
        const char *name = luaL_optstring(L, 2, "=(load)");
        luaL_Buffer b;
        luaL_buffinit(L, &b);
        for (;;) {                             /* collect the pieces, then parse */
            lua_pushvalue(L, 1);
            lua_call(L, 0, 1);
            if (lua_isnil(L, -1)) { lua_pop(L, 1); break; }
            if (!lua_isstring(L, -1)) return luaL_error(L, "reader function must return a string");
            if (lua_rawlen(L, -1) == 0) { lua_pop(L, 1); break; }
            luaL_addvalue(&b);
        }
        luaL_pushresult(&b);
        size_t length;
        const char *source = lua_tolstring(L, -1, &length);
        status = luaL_loadbufferx(L, source, length, name, mode);
    }
    if (status != LUA_OK) {
        if (is_limit(L, status)) return lua_error(L);   /* not the script's to handle */
        luaL_pushfail(L);
        lua_insert(L, -2);
        return 2;                              /* nil, message */
    }
    set_chunk_env(L, env);
    return 1;
}

/* Resolves `path` (relative to the script's folder) to a real path inside that folder,
   or raises when `raise`; pushes the path to show in messages and chunk names. */
static int resolve_in_folder(lua_State *L, const char *path, const char *what) {
    if (lua_isnil(L, lua_upvalueindex(FOLDER_UPVALUE)))
        return luaL_error(L, "%s: this script has no folder (it was not loaded from a file)", what);
    const char *folder = lua_tostring(L, lua_upvalueindex(FOLDER_UPVALUE));
    if (path[0] == '/') lua_pushstring(L, path);
    else lua_pushfstring(L, "%s/%s", folder, path);
    const char *shown = lua_tostring(L, -1);
    char real_folder[PATH_MAX], real_path[PATH_MAX];
    if (!realpath(folder, real_folder))
        return luaL_error(L, "%s: cannot resolve the script folder '%s': %s", what, folder, strerror(errno));
    if (!realpath(shown, real_path)) return 0;           /* missing: caller reports */
    size_t n = strlen(real_folder);
    if (strncmp(real_path, real_folder, n) != 0 || (real_path[n] != '/' && real_path[n] != '\0'))
        return luaL_error(L, "%s: '%s' is outside the script's folder", what, path);
    return 1;
}

/* Reads and loads the Lua file named on top of the stack; pushes the chunk or returns
   the error status with a message. */
static int load_file(lua_State *L, const char *mode) {
    const char *path = lua_tostring(L, -1);
    FILE *file = fopen(path, "rb");
    if (!file) {
        lua_pushfstring(L, "cannot open %s: %s", path, strerror(errno));
        return LUA_ERRFILE;
    }
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    char chunk[4096];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, file)) > 0) luaL_addlstring(&b, chunk, n);
    int failed = ferror(file);
    fclose(file);
    if (failed) {
        lua_pushfstring(L, "cannot read %s", path);
        return LUA_ERRFILE;
    }
    luaL_pushresult(&b);
    size_t length;
    const char *source = lua_tolstring(L, -1, &length);
    lua_pushfstring(L, "@%s", path);
    int status = luaL_loadbufferx(L, source, length, lua_tostring(L, -1), mode);
    lua_remove(L, -2);                         /* chunk name */
    lua_remove(L, -2);                         /* source */
    return status;
}

static int script_loadfile(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    int env = lua_isnone(L, 3) ? 0 : 3;
    if (!resolve_in_folder(L, path, "loadfile")) {
        luaL_pushfail(L);
        lua_pushfstring(L, "cannot open %s", lua_tostring(L, -2));
        return 2;
    }
    int status = load_file(L, load_mode(L));
    if (status != LUA_OK) {
        if (is_limit(L, status)) return lua_error(L);
        luaL_pushfail(L);
        lua_insert(L, -2);
        return 2;
    }
    set_chunk_env(L, env);
    return 1;
}

static int script_dofile(lua_State *L) {
    const char *path = luaL_checkstring(L, 1);
    lua_settop(L, 1);
    if (!resolve_in_folder(L, path, "dofile"))
        return luaL_error(L, "dofile: cannot open %s", lua_tostring(L, -1));
    if (load_file(L, load_mode(L)) != LUA_OK) return lua_error(L);
    set_chunk_env(L, 0);
    lua_call(L, 0, LUA_MULTRET);
    return lua_gettop(L) - 2;
}

static int valid_module_name(const char *name) {
    if (!*name || *name == '.') return 0;
    for (const char *p = name; *p; p++) {
        char c = *p;
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
              || c == '_' || c == '-' || (c == '.' && p[1] != '.' && p[1] != '\0');
        if (!ok) return 0;
    }
    return 1;
}

/* The value of a module in the loaded table while its main chunk runs. */
static char loading_sentinel;

/* __close of the guard: a module whose main chunk raised is not loaded, so a later
   require tries again instead of reporting a loop. Fields: 1 the loaded table, 2 the name. */
static int clear_loading(lua_State *L) {
    lua_rawgeti(L, 1, 1);
    lua_rawgeti(L, 1, 2);
    lua_pushvalue(L, -1);
    lua_rawget(L, -3);
    if (lua_touserdata(L, -1) == &loading_sentinel) {
        lua_pop(L, 1);
        lua_pushnil(L);
        lua_rawset(L, -3);
    }
    return 0;
}

/* Pushes a to-be-closed guard for the module named at `name_index`. */
static void push_loading_guard(lua_State *L, int name_index) {
    lua_createtable(L, 2, 0);
    lua_pushvalue(L, lua_upvalueindex(LOADED_UPVALUE));
    lua_rawseti(L, -2, 1);
    lua_pushvalue(L, name_index);
    lua_rawseti(L, -2, 2);
    if (luaL_newmetatable(L, "wheel.require_guard")) {
        lua_pushcfunction(L, clear_loading);
        lua_setfield(L, -2, "__close");
    }
    lua_setmetatable(L, -2);
    lua_toclose(L, -1);
}

static int script_require(lua_State *L) {
    const char *name = luaL_checkstring(L, 1);
    lua_settop(L, 1);
    lua_pushvalue(L, 1);
    if (lua_rawget(L, lua_upvalueindex(LOADED_UPVALUE)) != LUA_TNIL) {
        if (lua_touserdata(L, -1) == &loading_sentinel)
            return luaL_error(L, "require loop: module '%s' requires itself, directly or through other modules", name);
        return 1;
    }
    lua_pop(L, 1);
    if (!valid_module_name(name))
        return luaL_error(L, "module '%s' not found: a module name is letters, digits, '_' and '-', separated by dots", name);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (const char *p = name; *p; p++) luaL_addchar(&b, *p == '.' ? '/' : *p);
    luaL_pushresult(&b);                       /* 2: relative path without extension */
    const char *relative = lua_tostring(L, 2);
    static const char *const patterns[] = { "%s.lua", "%s/init.lua" };
    int found = 0;
    for (int i = 0; i < 2 && !found; i++) {
        lua_pushfstring(L, patterns[i], relative);
        found = resolve_in_folder(L, lua_tostring(L, -1), "require");
        lua_remove(L, -2);                     /* keep the shown path */
        if (!found) lua_pop(L, 1);
    }
    if (!found)
        return luaL_error(L, "module '%s' not found: no %s.lua or %s/init.lua under the script's folder"
                             " (only Lua files there can be required)", name, relative, relative);
    lua_pushvalue(L, 1);
    lua_pushlightuserdata(L, &loading_sentinel);
    lua_rawset(L, lua_upvalueindex(LOADED_UPVALUE));
    push_loading_guard(L, 1);                  /* clears the sentinel if loading fails */
    lua_pushvalue(L, -2);                      /* the path, for load_file */
    if (load_file(L, load_mode(L)) != LUA_OK) return lua_error(L);
    set_chunk_env(L, 0);
    lua_pushvalue(L, 1);
    lua_call(L, 1, 1);
    if (lua_isnil(L, -1)) { lua_pop(L, 1); lua_pushboolean(L, 1); }
    lua_pushvalue(L, 1);
    lua_pushvalue(L, -2);
    lua_rawset(L, lua_upvalueindex(LOADED_UPVALUE));
    return 1;
}

int wl_new_environment(lua_State *L, int library_index, const char *folder, int trusted) {
    library_index = lua_absindex(L, library_index);
    lua_createtable(L, 0, 48);
    int env = lua_gettop(L);
    lua_createtable(L, 0, 16);
    int loaded = lua_gettop(L);
    if (trusted) {
        /* The whole global table shows through; what the script sets stays its own. */
        lua_createtable(L, 0, 1);
        lua_pushvalue(L, library_index);
        lua_setfield(L, -2, "__index");
        lua_setmetatable(L, env);
    } else {
        /* Library tables are copied, so that a script changing one changes its own. */
        lua_pushnil(L);
        while (lua_next(L, library_index)) {
            if (lua_type(L, -1) == LUA_TTABLE) {
                int source = lua_gettop(L);
                lua_createtable(L, 0, 32);
                lua_pushnil(L);
                while (lua_next(L, source)) {
                    lua_pushvalue(L, -2);
                    lua_insert(L, -2);
                    lua_rawset(L, -4);
                }
                lua_remove(L, source);
                lua_pushvalue(L, -2);
                lua_pushvalue(L, -2);
                lua_rawset(L, loaded);         /* require "string" gives the copy */
            }
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, env);
        }
    }
    lua_pushvalue(L, env);
    lua_setfield(L, env, "_G");
    static const lua_CFunction functions[] = { script_load, script_loadfile, script_dofile, script_require };
    static const char *const names[] = { "load", "loadfile", "dofile", "require" };
    for (int i = 0; i < (trusted ? 1 : 4); i++) {
        lua_pushvalue(L, env);
        if (folder) lua_pushstring(L, folder); else lua_pushnil(L);
        lua_pushvalue(L, loaded);
        lua_pushboolean(L, trusted);
        lua_pushcclosure(L, functions[i], 4);
        lua_setfield(L, env, names[i]);
    }
    lua_pop(L, 1);                             /* loaded */
    return 1;
}
