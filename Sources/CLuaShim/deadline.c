/*
 * The CPU deadline per host→script call (DESIGN, bridge invariant 4).
 *
 * A call stores its deadline in the runtime; nothing else happens on the hot path. One
 * watchdog thread per process sleeps until the earliest deadline among the states it
 * watches. When a deadline passes it marks the runtime expired and arms a count hook on
 * the thread that is running Lua code. Only then does Lua pay for a hook: a hook that is
 * always set makes every instruction take the slow path.
 *
 * The hook checks the clock itself before raising, so a hook armed for a call that has
 * since ended (a race the watchdog cannot rule out) removes itself and does nothing.
 * lua_sethook may be called from another thread while the state runs (the Lua manual
 * allows it, as lua.c does from a signal handler); `running_lock` makes sure the thread
 * it is given is not being switched away from and collected at that moment.
 */
#include <time.h>
#include <errno.h>
#include "internal.h"

static pthread_mutex_t watch_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watch_cond = PTHREAD_COND_INITIALIZER;
static wl_runtime *watched = NULL;        /* guarded by watch_mutex */
static int watchdog_started = 0;          /* guarded by watch_mutex */
static _Atomic int64_t wake_at = 0;       /* when the watchdog will next look; 0 while awake */

static int64_t now_ns(void) {
    struct timespec ts;
    /* Coarse is a vDSO read of a few ns; its resolution (a few ms) is far below any
       sensible deadline. */
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void lock_running(wl_runtime *rt) {
    while (atomic_flag_test_and_set_explicit(&rt->running_lock, memory_order_acquire)) { }
}
static void unlock_running(wl_runtime *rt) {
    atomic_flag_clear_explicit(&rt->running_lock, memory_order_release);
}

static void deadline_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    wl_runtime *rt = wl_rt(L);
    int64_t deadline = atomic_load(&rt->deadline);
    if (deadline == 0 || now_ns() < deadline) {
        lua_sethook(L, NULL, 0, 0);       /* stale: armed for a call that has ended */
        return;
    }
    if (rt->fatal != WL_FATAL_TIMEOUT) {
        rt->fatal = WL_FATAL_TIMEOUT;
        wl_record_frames(rt, L, 0);       /* where the script was: level 0 in a hook */
    }
    /* The hook stays armed: if anything swallowed this error, the next instruction
       raises it again. The sandbox's pcall wrappers rethrow it in any case. */
    luaL_error(L, "script timed out: the call exceeded its CPU deadline of %d ms",
               (int)(rt->timeout_ns / 1000000));
}

static void arm(lua_State *L) {
    lua_sethook(L, deadline_hook, LUA_MASKCOUNT | LUA_MASKCALL, 1);
}

void wl_arm_if_expired(wl_runtime *rt, lua_State *L) {
    if (atomic_load_explicit(&rt->expired, memory_order_relaxed)) arm(L);
}

/* Scans the watched states: arms the expired ones, returns the earliest pending deadline. */
static int64_t scan(int64_t now) {
    int64_t next = INT64_MAX;
    for (wl_runtime *rt = watched; rt; rt = rt->next) {
        int64_t deadline = atomic_load(&rt->deadline);
        if (deadline == 0) continue;
        if (now >= deadline) {
            if (!atomic_exchange(&rt->expired, 1)) {
                lock_running(rt);
                arm(rt->running);
                unlock_running(rt);
            }
        } else if (deadline < next) {
            next = deadline;
        }
    }
    return next;
}

static void *watchdog(void *unused) {
    (void)unused;
    pthread_mutex_lock(&watch_mutex);
    for (;;) {
        int64_t next = scan(now_ns());
        /* Publish when we mean to wake, then look again: a call that starts now either
           sees a later wake time and signals us (under the mutex we hold until we wait,
           so the signal is not lost), or we see its deadline in this second scan. */
        atomic_store(&wake_at, next);
        int64_t again = scan(now_ns());
        if (again < next) continue;
        if (next == INT64_MAX) {
            pthread_cond_wait(&watch_cond, &watch_mutex);
        } else {
            int64_t at = next + 1000000;          /* past the coarse clock's tick */
            struct timespec until = { .tv_sec = at / 1000000000, .tv_nsec = at % 1000000000 };
            pthread_cond_timedwait(&watch_cond, &watch_mutex, &until);
        }
        atomic_store(&wake_at, 0);                /* awake: the next scan sees everything */
    }
    return NULL;
}

void wl_watch(wl_runtime *rt) {
    pthread_mutex_lock(&watch_mutex);
    rt->next = watched;
    watched = rt;
    if (!watchdog_started) {
        pthread_condattr_t attr;
        pthread_condattr_init(&attr);
        pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
        pthread_cond_destroy(&watch_cond);
        pthread_cond_init(&watch_cond, &attr);
        pthread_condattr_destroy(&attr);
        pthread_t thread;
        pthread_attr_t thread_attr;
        pthread_attr_init(&thread_attr);
        pthread_attr_setdetachstate(&thread_attr, PTHREAD_CREATE_DETACHED);
        pthread_attr_setstacksize(&thread_attr, 64 * 1024);
        if (pthread_create(&thread, &thread_attr, watchdog, NULL) == 0) watchdog_started = 1;
        pthread_attr_destroy(&thread_attr);
    }
    pthread_mutex_unlock(&watch_mutex);
}

void wl_unwatch(wl_runtime *rt) {
    pthread_mutex_lock(&watch_mutex);
    for (wl_runtime **p = &watched; *p; p = &(*p)->next) {
        if (*p == rt) { *p = rt->next; break; }
    }
    pthread_mutex_unlock(&watch_mutex);
}

int wl_call_begin(lua_State *L, int64_t timeout_ns) {
    wl_runtime *rt = wl_rt(L);
    int depth = rt->call_depth++;
    if (depth > 0) return depth;          /* nested calls keep the outer deadline */
    rt->fatal = WL_FATAL_NONE;
    rt->frame_count = 0;
    rt->timeout_ns = timeout_ns;
    if (timeout_ns > 0) {
        atomic_store(&rt->expired, 0);
        atomic_store(&rt->deadline, now_ns() + timeout_ns);
        if (atomic_load(&rt->deadline) < atomic_load(&wake_at)) {
            pthread_mutex_lock(&watch_mutex);
            pthread_cond_signal(&watch_cond);
            pthread_mutex_unlock(&watch_mutex);
        }
    }
    return depth;
}

void wl_call_end(lua_State *L, int depth) {
    wl_runtime *rt = wl_rt(L);
    rt->call_depth = depth;
    if (depth > 0 || rt->timeout_ns == 0) return;
    atomic_store(&rt->deadline, 0);
    if (atomic_exchange(&rt->expired, 0)) {
        /* The hook may be left on threads that ran since; the stale check in the hook
           removes it there, and here we remove it from the thread we return to. */
        lock_running(rt);
        lua_sethook(rt->running, NULL, 0, 0);
        lua_sethook(rt->main, NULL, 0, 0);
        unlock_running(rt);
    }
}

void wl_set_running(lua_State *L, lua_State *running) {
    wl_runtime *rt = wl_rt(L);
    lock_running(rt);
    rt->running = running;
    unlock_running(rt);
    wl_arm_if_expired(rt, running);
}

lua_State *wl_running(lua_State *L) { return wl_rt(L)->running; }
int64_t wl_timeout_ns(lua_State *L) { return wl_rt(L)->timeout_ns; }
