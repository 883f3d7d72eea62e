/*
 * CLuaReference: the work of each wheel-bench case written directly against the Lua C API,
 * the way a careful C embedder would write it. wheel-bench times these loops in the same
 * process as the Wheel versions and reports the ratio.
 *
 * Each clr_state is its own luaL_newstate() + luaL_openlibs() state, with no allocator,
 * hook or message handler of Wheel's. The header hides lua.h so that Swift sees only what
 * the benchmark calls. A failed Lua call is a defect of the benchmark: it prints the
 * message and aborts.
 */
#ifndef CLUA_REFERENCE_H
#define CLUA_REFERENCE_H

#include <stdint.h>

typedef struct clr_state clr_state;

/* A new state with the standard libraries and every case's script compiled. */
clr_state *clr_open(void);
void clr_close(clr_state *state);

/* Swift→Lua: calls `function(row) return "row " .. row end` for row = first ..< first +
   count from a C loop, copying each result's bytes out. Returns a checksum of the bytes. */
uint64_t clr_call_title(clr_state *state, int64_t first, int64_t count);

/* The same calls, with the result dropped unread: lua_pcall(L, 1, 0, 0). Returns count. */
uint64_t clr_call_title_discarding(clr_state *state, int64_t first, int64_t count);

/* Lua→C: runs `for i = 1, n do f(i) end` once, where f is a C function returning x + 1. */
void clr_call_function_loop(clr_state *state, int64_t n);

/* Userdata method: runs `for i = 1, n do obj:add(1) end` once on a C userdata whose
   metatable's __index is a methods table. Returns the counter's total so far. */
int64_t clr_call_method_loop(clr_state *state, int64_t n);

/* Runs `local x = 0 for i = 1, n do x = x + i end return x` once; returns x. */
int64_t clr_run_sum_loop(clr_state *state, int64_t n);

#endif
