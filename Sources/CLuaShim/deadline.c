/*
 * The CPU deadline per host→script call (DESIGN, bridge invariant 4).
 *
 * A call stores its deadline in the runtime; nothing else happens on the hot path. One
 * watchdog thread per process sleeps until the earliest deadline among the states it
 * watches. When a deadline passes, the watchdog records which deadline it is acting on
 * (`armed`) and sends a signal to the thread that made the call. The signal handler, on
 * that thread, arms a count hook on the Lua thread that is running, as lua.c does for
 * Ctrl-C. Only then does Lua pay for a hook: a hook that is always set makes every
 * instruction take the slow path. Setting the hook from the call's own thread means
 * nothing else ever touches the state while it runs.
 *
 * The hook checks the clock itself before raising, so a hook armed for a call that has
 * since ended removes itself and does nothing.
 *
 * A fallback covers threads where the signal does not arrive: when the handler has not
 * answered within SIGNAL_GRACE_NS, the watchdog sets the hook itself. That is the one
 * place where another thread touches a running state (lua_sethook writes a few fields
 * the VM polls), and it only happens when signals are not delivered: under the thread
 * sanitizer, which holds a signal back until the thread enters instrumented code (a
 * loop inside liblua never does), or in a host that blocks or takes over the signal.
 */
#include <errno.h>
#include <signal.h>
#include <time.h>
#include "internal.h"

static pthread_mutex_t watch_mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watch_cond = PTHREAD_COND_INITIALIZER;
static wl_runtime *watched = NULL;        /* guarded by watch_mutex */
static int watchdog_started = 0;          /* guarded by watch_mutex */
static _Atomic int64_t wake_at = 0;       /* when the watchdog will next look; 0 while awake */
static int deadline_signal = 0;           /* set once, before the watchdog starts */
#define SIGNAL_GRACE_NS 50000000          /* 50 ms */

/* The runtime whose outermost timed call this thread is making (for the signal handler). */
static _Thread_local wl_runtime *current = NULL;
/* Whether this thread accepts the deadline signal. Dispatch's worker threads, where Swift
   tasks run, block every signal; each thread that makes a timed call unblocks this one
   the first time (a system call, so once per thread). */
static _Thread_local int accepts_signal = 0;

static void accept_signal(void) {
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, deadline_signal);
    pthread_sigmask(SIG_UNBLOCK, &mask, NULL);
    accepts_signal = 1;
}

static int64_t now_ns(void) {
    struct timespec ts;
    /* Coarse is a vDSO read of a few ns; its resolution (a few ms) is far below any
       sensible deadline. */
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void spin_lock(atomic_flag *flag) {
    while (atomic_flag_test_and_set_explicit(flag, memory_order_acquire)) { }
}
static void spin_unlock(atomic_flag *flag) {
    atomic_flag_clear_explicit(flag, memory_order_release);
}

/* Raises the timeout error: marks the runtime (a limit every pcall wrapper rethrows) and
   records where the script was. `level` is the first stack level to record. */
static int raise_timeout(lua_State *L, int level) {
    wl_runtime *rt = wl_rt(L);
    if (rt->fatal != WL_FATAL_TIMEOUT) {
        rt->fatal = WL_FATAL_TIMEOUT;
        wl_record_frames(rt, L, level);
    }
    return luaL_error(L, "script timed out: the call exceeded its CPU deadline of %d ms",
                      (int)(rt->timeout_ns / 1000000));
}

int wl_deadline_passed(lua_State *L) {
    int64_t deadline = atomic_load_explicit(&wl_rt(L)->deadline, memory_order_relaxed);
    return deadline != 0 && now_ns() >= deadline;
}

int wl_check_deadline(lua_State *L) {
    if (wl_deadline_passed(L)) return raise_timeout(L, 1);
    return 0;
}

static void deadline_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    if (!wl_deadline_passed(L)) {
        lua_sethook(L, NULL, 0, 0);       /* stale: armed for a call that has ended */
        return;
    }
    /* The hook stays armed: if anything swallowed this error, the next instruction
       raises it again. The sandbox's pcall wrappers rethrow it in any case. */
    raise_timeout(L, 0);                  /* level 0 in a hook is the running function */
}

static void arm(lua_State *L) {
    lua_sethook(L, deadline_hook, LUA_MASKCOUNT | LUA_MASKCALL, 1);
}

/* Whether the watchdog acted on the deadline of the call in progress. */
static int expired(wl_runtime *rt) {
    int64_t armed = atomic_load(&rt->armed);
    return armed != 0 && armed == atomic_load(&rt->deadline);
}

static void on_deadline_signal(int signal) {
    (void)signal;
    int saved = errno;
    wl_runtime *rt = current;             /* this thread's call, if it still makes one */
    if (rt && expired(rt)) {
        arm(atomic_load_explicit(&rt->running, memory_order_relaxed));
        atomic_store(&rt->answered, 1);
    }
    errno = saved;
}

/* Scans the watched states: signals the expired ones, returns the earliest pending deadline. */
static int64_t scan(int64_t now) {
    int64_t next = INT64_MAX;
    for (wl_runtime *rt = watched; rt; rt = rt->next) {
        int64_t deadline = atomic_load(&rt->deadline);
        if (deadline == 0) continue;
        if (now >= deadline) {
            if (atomic_load(&rt->armed) != deadline) {
                atomic_store(&rt->answered, 0);
                atomic_store(&rt->armed, deadline);
                rt->signalled_at = now;
                /* The owner waits on this lock in wl_call_end once it sees `armed`, so the
                   thread we signal cannot have finished its call and gone away. */
                spin_lock(&rt->signal_lock);
                if (atomic_load(&rt->deadline) == deadline)
                    pthread_kill((pthread_t)atomic_load(&rt->owner), deadline_signal);
                spin_unlock(&rt->signal_lock);
            } else if (!atomic_load(&rt->answered)) {
                int64_t fallback_at = rt->signalled_at + SIGNAL_GRACE_NS;
                if (now >= fallback_at) {
                    /* No answer: set the hook from here (see the top of this file). */
                    spin_lock(&rt->signal_lock);
                    if (atomic_load(&rt->deadline) == deadline)
                        arm(atomic_load_explicit(&rt->running, memory_order_relaxed));
                    atomic_store(&rt->answered, 1);
                    spin_unlock(&rt->signal_lock);
                }
            }
            if (!atomic_load(&rt->answered) && rt->signalled_at + SIGNAL_GRACE_NS < next)
                next = rt->signalled_at + SIGNAL_GRACE_NS;
        } else if (deadline < next) {
            next = deadline;
        }
    }
    return next;
}

static void *watchdog(void *unused) {
    (void)unused;
    /* The signal is for the threads that run scripts, never for this one. */
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, deadline_signal);
    pthread_sigmask(SIG_BLOCK, &mask, NULL);
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

static void start_watchdog(void) {
    /* A real-time signal nothing else in the process uses; SA_RESTART so that system
       calls in host functions carry on. */
    deadline_signal = SIGRTMIN + 5;
    struct sigaction action = { 0 };
    action.sa_handler = on_deadline_signal;
    action.sa_flags = SA_RESTART;
    sigemptyset(&action.sa_mask);
    sigaction(deadline_signal, &action, NULL);

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

void wl_watch(wl_runtime *rt) {
    pthread_mutex_lock(&watch_mutex);
    rt->next = watched;
    watched = rt;
    if (!watchdog_started) start_watchdog();
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
        if (!accepts_signal) accept_signal();
        rt->outer = current;              /* a host function of another state calls us */
        current = rt;
        atomic_store_explicit(&rt->owner, (uintptr_t)pthread_self(), memory_order_relaxed);
        int64_t deadline = now_ns() + timeout_ns;
        atomic_store(&rt->deadline, deadline);
        if (deadline < atomic_load(&wake_at)) {
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
    current = rt->outer;
    atomic_store(&rt->deadline, 0);
    if (atomic_load(&rt->armed) != 0) {
        /* The watchdog acted on this call: wait until it has finished signalling. */
        spin_lock(&rt->signal_lock);
        spin_unlock(&rt->signal_lock);
        atomic_store(&rt->armed, 0);
        /* The hook may be left on threads that ran since; the stale check in the hook
           removes it there, and here we remove it from the threads we return to. */
        lua_sethook(atomic_load_explicit(&rt->running, memory_order_relaxed), NULL, 0, 0);
        lua_sethook(rt->main, NULL, 0, 0);
    }
}

void wl_set_running(lua_State *L, lua_State *running) {
    wl_runtime *rt = wl_rt(L);
    atomic_store_explicit(&rt->running, running, memory_order_relaxed);
    /* A signal that came before this store armed the thread we left: arm this one. */
    if (expired(rt)) arm(running);
}

lua_State *wl_running(lua_State *L) { return atomic_load_explicit(&wl_rt(L)->running, memory_order_relaxed); }
int64_t wl_timeout_ns(lua_State *L) { return wl_rt(L)->timeout_ns; }
