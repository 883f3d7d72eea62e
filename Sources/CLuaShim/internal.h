/* The runtime record shared by the shim's files. Not visible to Swift. */
#ifndef WHEEL_SHIM_INTERNAL_H
#define WHEEL_SHIM_INTERNAL_H

#include <stdatomic.h>
#include <pthread.h>
#include "include/CLuaShim.h"

/* How many host functions and methods per state get a trampoline of their own. */
#define WL_POOLED_FUNCTIONS 64
#define WL_POOLED_METHODS 32

struct wl_runtime {
    /* memory: touched only by the owner thread */
    size_t used;              /* kept by the allocator while `counting`; otherwise the
                                 last total wl_memory_used read from Lua */
    size_t limit;             /* 0: no ceiling */
    int counting;             /* the state runs on wl_alloc (1) or wl_alloc_plain (0); a
                                 state with a ceiling always counts (runtime.c) */
    /* > 0 while a Swift frame sits between Lua and the nearest protected call. The
       allocator then never fails (a failure would longjmp through Swift); the trampoline
       raises the memory error once the Swift frame has returned (invariant 1). */
    int unprotected;

    /* limits */
    int fatal;                /* WL_FATAL_*: sticky for the current outermost call */
    int call_depth;
    int close_depth;          /* coroutine.close calls in progress (sandbox.c) */
    int64_t timeout_ns;       /* of the current outermost call */
    _Atomic int64_t deadline; /* monotonic ns; 0: no call is being timed */
    _Atomic int64_t armed;    /* the deadline the watchdog acted on; 0: none */
    _Atomic uintptr_t owner;  /* the pthread making the outermost timed call */
    atomic_flag signal_lock;  /* held by the watchdog while it signals `owner` */
    _Atomic int answered;     /* the signal handler armed the hook for `armed` */
    int64_t signalled_at;     /* when the watchdog signalled; the watchdog's own */
    struct wl_runtime *outer; /* the thread's previous `current` runtime (deadline.c) */
    /* The Lua thread executing code now. Written by the owner; read by the deadline
       signal handler on the same thread, hence atomic. */
    _Atomic(lua_State *) running;
    lua_State *main;

    /* errors */
    int error_arg;
    int frame_count;
    wl_frame frames[WL_MAX_FRAMES];

    /* the Swift LuaState that owns this state (unretained) */
    void *host;

    /* Boxes of the host functions and methods with trampolines of their own
       (trampoline.c); a slot is NULL once its keeper released the box, and never
       reused. Methods also keep their metatable's address, to check `self`. */
    int pooled_function_count;
    int pooled_method_count;
    void *pooled_functions[WL_POOLED_FUNCTIONS];
    void *pooled_methods[WL_POOLED_METHODS];
    const void *pooled_metatables[WL_POOLED_METHODS];

    /* log */
    wl_log_fn log;
    void *log_context;
    char warning[512];        /* a warning's pieces until the last one (runtime.c) */
    size_t warning_length;

    /* the watchdog's list, guarded by its mutex */
    struct wl_runtime *next;
};

/* Far below what the C stack of any thread that runs scripts can hold. */
#define WL_MAX_CLOSE_DEPTH 64

static inline wl_runtime *wl_rt(lua_State *L) { return *(wl_runtime **)lua_getextraspace(L); }

void wl_watch(wl_runtime *rt);
void wl_unwatch(wl_runtime *rt);
/* Whether the current call's deadline has passed; raises the timeout error if so. For C
   functions whose loops the hook cannot reach. */
int wl_deadline_passed(lua_State *L);
int wl_check_deadline(lua_State *L);
void wl_record_frames(wl_runtime *rt, lua_State *L, int first_level);
/* Raises the memory error if a Swift frame pushed usage over the ceiling and a full
   collection cannot bring it back. Called by trampolines after the Swift frame returned. */
void wl_settle_memory(lua_State *L);

#endif
