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

/* Picker frames as a C host draws them: `components` wheels of `count` items that wrap,
   `rows` visible rows each (the selection in row (rows - 1) / 2, counting from 0). For
   each of `frames` frames, every wheel first turns `step` rows, then each row's title is
   computed by calling `function(p, i) return 'row ' .. i end` with p a userdata (the
   picker, from the registry) and i the row's item counting from 1, under a traceback
   message handler pushed once per frame, and copied into the frame's row buffer.
   `selections` holds each wheel's selected item (0-based) and is advanced in place, so
   consecutive calls go on where the last one stopped. Returns a checksum over the frames'
   titles: each title's length plus its last byte. */
#define CLR_PICKER_MAX_COMPONENTS 8
#define CLR_PICKER_MAX_ROWS 16
uint64_t clr_picker_frames(clr_state *state, int64_t *selections, int components, int rows,
                           int64_t count, int64_t step, int64_t frames);

/* Pager pages bound as a C host binds them. The records are made by `records_chunk` (Lua
   text, called with `count`; it returns a list of `count` tables), and each record is held
   by a registry reference of its own, as Wheel holds them. Pages are 0-based; the bound
   window is the current page and `keep` pages on each side (clipped to the records), and
   clr_pager_open binds the first window (page 0 current).

   Binding a page reads three fields of its record and copies each string into memory the
   page owns (malloc), freed when the page is unbound; a missing field is empty:
   - without `bind_function`: title = record.from_user, text = record.text and
     subtitle = record.user.name, with lua_getfield (the nested one through user);
   - with `bind_function` (Lua text returning function(record, index)): the function is
     called with lua_pcall under a traceback message handler, with the record and its
     1-based index, and title, text and subtitle are read from the table it returns. */
typedef struct clr_pager clr_pager;
clr_pager *clr_pager_open(clr_state *state, const char *records_chunk, int64_t count,
                          const char *bind_function, int keep);
void clr_pager_close(clr_pager *pager);

/* `swipes` moves of the current page, as Wheel's PagerCore makes them: one page on, or,
   from the last page, a jump back to the first. Each move unbinds the pages that leave the
   window (freeing their strings) before it binds those that enter. Returns a checksum over
   the pages bound: for each of the three fields, its length plus its last byte. */
uint64_t clr_pager_swipes(clr_pager *pager, int64_t swipes);

/* Hands the heap's free pages back to the system (glibc's malloc_trim), so that a reading
   of the resident set counts what is allocated, not what was freed earlier. Returns 1 if
   memory was released, 0 if none was or where malloc_trim does not exist. */
int clr_trim_heap(void);

#endif
