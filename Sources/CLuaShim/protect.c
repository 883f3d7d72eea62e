/*
 * Protected calls from Swift into Lua. Each one clears the runtime's `unprotected` mark
 * for its duration: below a protected call, an allocation may fail (Lua longjmps to the
 * pcall's own setjmp, which is below the Swift frame), so the memory ceiling applies.
 */
#include "internal.h"

/* The message handler: records where the error happened, without allocating, and
   leaves the error value as it is. Level 0 is the handler itself. */
int wl_message_handler(lua_State *L) {
    wl_runtime *rt = wl_rt(L);
    /* A limit is rethrown by every pcall wrapper on its way out: keep the frames of the
       place where it first hit, not of the last rethrow. */
    if (rt->fatal == WL_FATAL_NONE || rt->frame_count == 0) wl_record_frames(rt, L, 1);
    return 1;
}

int wl_pcall_with_handler(lua_State *L, int nargs, int nresults, int handler) {
    wl_runtime *rt = wl_rt(L);
    int saved = rt->unprotected;
    rt->unprotected = 0;
    int status = lua_pcall(L, nargs, nresults, handler);
    rt->unprotected = saved;
    if (status == LUA_ERRMEM && rt->fatal == WL_FATAL_NONE) rt->fatal = WL_FATAL_MEMORY;
    return status;
}

int wl_invoke_untimed(lua_State *L, int nargs, int nresults, int handler) {
    /* wl_call_begin's and wl_call_end's bookkeeping for a call without a deadline. */
    wl_runtime *rt = wl_rt(L);
    int depth = rt->call_depth++;
    if (depth == 0) {
        rt->fatal = WL_FATAL_NONE;
        rt->frame_count = 0;
        rt->timeout_ns = 0;
    }
    int saved = rt->unprotected;
    rt->unprotected = 0;
    int status = lua_pcall(L, nargs, nresults, handler);
    rt->unprotected = saved;
    if (status == LUA_ERRMEM && rt->fatal == WL_FATAL_NONE) rt->fatal = WL_FATAL_MEMORY;
    rt->call_depth = depth;
    return status;
}

int wl_invoke(lua_State *L, int nargs, int nresults, int handler, int64_t timeout_ns) {
    if (timeout_ns == 0) return wl_invoke_untimed(L, nargs, nresults, handler);
    int depth = wl_call_begin(L, timeout_ns);
    int status = wl_pcall_with_handler(L, nargs, nresults, handler);
    wl_call_end(L, depth);
    return status;
}

void wl_clear_failure(lua_State *L) {
    wl_runtime *rt = wl_rt(L);
    rt->fatal = WL_FATAL_NONE;
    rt->frame_count = 0;
}

int wl_pcall(lua_State *L, int nargs, int nresults) {
    int handler = lua_gettop(L) - nargs;
    lua_pushcfunction(L, wl_message_handler);
    lua_rotate(L, handler, 1);
    int status = wl_pcall_with_handler(L, nargs, nresults, handler);
    lua_rotate(L, handler, -1);
    lua_pop(L, 1);
    return status;
}

int wl_load(lua_State *L, const char *bytes, size_t length, const char *chunkname, int text_only) {
    wl_runtime *rt = wl_rt(L);
    int saved = rt->unprotected;
    rt->unprotected = 0;   /* the parser runs protected */
    int status = luaL_loadbufferx(L, bytes, length, chunkname, text_only ? "t" : "bt");
    rt->unprotected = saved;
    return status;
}

static int do_gettable(lua_State *L) { lua_gettable(L, 1); return 1; }
static int do_settable(lua_State *L) { lua_settable(L, 1); return 0; }
static int do_tolstring(lua_State *L) { luaL_tolstring(L, 1, NULL); return 1; }

int wl_pgettable(lua_State *L, int table_index) {
    table_index = lua_absindex(L, table_index);
    lua_pushcfunction(L, do_gettable);
    lua_pushvalue(L, table_index);
    lua_rotate(L, -3, 2);                 /* f, t, key */
    return wl_pcall(L, 2, 1);
}

int wl_psettable(lua_State *L, int table_index) {
    table_index = lua_absindex(L, table_index);
    lua_pushcfunction(L, do_settable);
    lua_pushvalue(L, table_index);
    lua_rotate(L, -4, 2);                 /* f, t, key, value */
    return wl_pcall(L, 3, 0);
}

int wl_ptolstring(lua_State *L, int index) {
    index = lua_absindex(L, index);
    lua_pushcfunction(L, do_tolstring);
    lua_pushvalue(L, index);
    return wl_pcall(L, 1, 1);
}

int wl_resume(lua_State *L, lua_State *co, int nargs, int *nresults) {
    wl_runtime *rt = wl_rt(L);
    int saved = rt->unprotected;
    rt->unprotected = 0;
    wl_set_running(L, co);
    int status = lua_resume(co, L, nargs, nresults);
    wl_set_running(L, L);
    rt->unprotected = saved;
    if (status != LUA_OK && status != LUA_YIELD) {
        if (status == LUA_ERRMEM && rt->fatal == WL_FATAL_NONE) rt->fatal = WL_FATAL_MEMORY;
        if (rt->fatal == WL_FATAL_NONE || rt->frame_count == 0) wl_record_frames(rt, co, 0);
    }
    return status;
}
