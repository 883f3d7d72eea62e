/*
 * The per-state runtime record and the allocator that enforces the memory ceiling.
 *
 * Every thread's extra space (LUA_EXTRASPACE) holds a pointer to the runtime; new threads
 * inherit it from the main thread, so wl_rt(L) is one load on any coroutine.
 */
#include <stdlib.h>
#include <string.h>
#include "internal.h"

/* The allocator of a state with a memory ceiling: counts every byte against it. */
static void *wl_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    wl_runtime *rt = ud;
    size_t old = ptr ? osize : 0;   /* when ptr is NULL, osize is a type tag, not a size */
    /* `used` can fall short of the blocks freed here only if counting started while
       Lua could not report its total (wl_set_memory_limit from a finalizer): saturate. */
    size_t kept = rt->used > old ? rt->used - old : 0;
    if (nsize == 0) {
        free(ptr);
        rt->used = kept;
        return NULL;
    }
    if (nsize > old && rt->limit != 0 && !rt->unprotected
        && (rt->used > rt->limit || nsize - old > rt->limit - rt->used)) {
        return NULL;                /* Lua collects, retries, then raises LUA_ERRMEM */
    }
    void *block = realloc(ptr, nsize);
    if (block == NULL) return NULL;
    rt->used = kept + nsize;
    return block;
}

/* The allocator of a state without a ceiling: nothing to check and nothing to count,
   since Lua keeps the same total itself (see wl_memory_used). It runs for every string
   a script builds, so it does no more than lauxlib's own allocator. */
static void *wl_alloc_plain(void *ud, void *ptr, size_t osize, size_t nsize) {
    (void)ud; (void)osize;
    if (nsize == 0) {
        free(ptr);
        return NULL;
    }
    return realloc(ptr, nsize);
}

/* The bytes Lua counts for the state: exactly what the allocator handed out, the same
   total wl_alloc keeps. -1 while the collector runs finalizers (lua_gc refuses then). */
static long long total_bytes(lua_State *L) {
    int kilobytes = lua_gc(L, LUA_GCCOUNT, 0);
    if (kilobytes < 0) return -1;
    return (long long)kilobytes * 1024 + lua_gc(L, LUA_GCCOUNTB, 0);
}

static void wl_warn(void *ud, const char *message, int tocont) {
    /* Lua reports errors in __gc and __close metamethods as warnings, in pieces
       ("error in ", "__gc", " (", message, ")"): gather them into one log line. */
    wl_runtime *rt = ud;
    if (rt->warning_length == 0 && !tocont && message[0] == '@') return;   /* "@on", "@off" */
    size_t length = strlen(message);
    size_t room = sizeof rt->warning - 1 - rt->warning_length;
    if (length > room) length = room;
    memcpy(rt->warning + rt->warning_length, message, length);
    rt->warning_length += length;
    if (tocont) return;
    if (rt->log) rt->log(rt->log_context, 2, rt->warning, rt->warning_length);
    rt->warning_length = 0;
}

lua_State *wl_newstate(size_t limit) {
    wl_runtime *rt = calloc(1, sizeof *rt);
    if (rt == NULL) return NULL;
    rt->limit = limit;
    rt->counting = limit != 0;
    rt->unprotected = 1;   /* Swift code is running: see wl_pcall for where it drops */
    atomic_flag_clear(&rt->signal_lock);
    lua_State *L = lua_newstate(limit != 0 ? wl_alloc : wl_alloc_plain, rt);
    if (L == NULL) { free(rt); return NULL; }
    *(wl_runtime **)lua_getextraspace(L) = rt;
    rt->main = L;
    atomic_store(&rt->running, L);
    lua_setwarnf(L, wl_warn, rt);
    wl_watch(rt);
    return L;
}

void wl_close(lua_State *L) {
    wl_runtime *rt = wl_rt(L);
    wl_unwatch(rt);
    rt->limit = 0;                   /* closing runs __gc metamethods, which may allocate */
    lua_close(rt->main);
    free(rt);
}

wl_runtime *wl_runtime_of(lua_State *L) { return wl_rt(L); }
size_t wl_memory_used(lua_State *L) {
    wl_runtime *rt = wl_rt(L);
    if (!rt->counting) {
        long long total = total_bytes(rt->main);
        if (total >= 0) rt->used = (size_t)total;   /* else the last total known */
    }
    return rt->used;
}

size_t wl_memory_limit(lua_State *L) { return wl_rt(L)->limit; }

void wl_set_memory_limit(lua_State *L, size_t limit) {
    wl_runtime *rt = wl_rt(L);
    if (limit != 0 && !rt->counting) {
        /* From here on every byte counts: start from Lua's own total, then let the
           counting allocator keep it. */
        rt->used = wl_memory_used(L);
        rt->counting = 1;
        lua_setallocf(rt->main, wl_alloc, rt);
    }
    rt->limit = limit;
}
int wl_fatal(lua_State *L) { return wl_rt(L)->fatal; }

void wl_set_log(lua_State *L, wl_log_fn fn, void *context) {
    wl_runtime *rt = wl_rt(L);
    rt->log = fn;
    rt->log_context = context;
}

void wl_log(lua_State *L, int level, const char *text, size_t length) {
    wl_runtime *rt = wl_rt(L);
    if (rt->log) rt->log(rt->log_context, level, text, length);
}

void wl_settle_memory(lua_State *L) {
    wl_runtime *rt = wl_rt(L);
    if (rt->limit == 0 || rt->used <= rt->limit) return;
    /* Any allocation now fails the ceiling test; Lua first runs a full collection and
       raises LUA_ERRMEM only if that does not free enough. */
    lua_newuserdatauv(L, 1, 0);
    lua_pop(L, 1);
}

/* ---- frames */

static void copy_text(char *to, size_t size, const char *from) {
    if (from == NULL) from = "";
    size_t n = strlen(from);
    if (n >= size) n = size - 1;
    memcpy(to, from, n);
    to[n] = '\0';
}

void wl_record_frames(wl_runtime *rt, lua_State *L, int first_level) {
    lua_Debug ar;
    int count = 0;
    /* lua_getstack and lua_getinfo with "Sln" do not allocate, so this is safe inside a
       message handler even when memory is exhausted. */
    for (int level = first_level; count < WL_MAX_FRAMES && lua_getstack(L, level, &ar); level++) {
        if (!lua_getinfo(L, "Sln", &ar)) break;
        wl_frame *f = &rt->frames[count++];
        copy_text(f->source, sizeof f->source, ar.short_src);
        copy_text(f->name, sizeof f->name, ar.name);
        copy_text(f->what, sizeof f->what, ar.what);
        copy_text(f->namewhat, sizeof f->namewhat, ar.namewhat);
        f->line = ar.currentline;
        f->linedefined = ar.linedefined;
    }
    rt->frame_count = count;
}

int wl_frame_count(lua_State *L) { return wl_rt(L)->frame_count; }
const wl_frame *wl_frame_at(lua_State *L, int index) { return &wl_rt(L)->frames[index]; }
void wl_capture_frames(lua_State *L, lua_State *co) { wl_record_frames(wl_rt(L), co, 0); }

void wl_set_host(lua_State *L, void *host) { wl_rt(L)->host = host; }
void *wl_host(lua_State *L) { return wl_rt(L)->host; }
