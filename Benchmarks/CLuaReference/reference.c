/*
 * The reference side of wheel-bench: plain Lua C API, no Wheel shim. The scripts are the
 * same text wheel-bench loads into its Wheel states, so both sides run identical bytecode.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lua.h>
#include <lauxlib.h>
#include <lualib.h>
#include "CLuaReference.h"
#ifdef __GLIBC__
#include <malloc.h>
#endif

#define COUNTER_TYPE "clr.Counter"
#define PICKER_TYPE "clr.Picker"

struct clr_state {
    lua_State *L;
    int title;          /* registry refs of the compiled case functions */
    int function_loop;
    int method_loop;
    int sum_loop;
    int increment;      /* the C function f of the Lua→C case */
    int counter;        /* the userdata of the method case */
    int picker_title;   /* the picker case's title(p, i) */
    int picker;         /* the userdata passed as p */
};

typedef struct counter {
    lua_Integer value;
} counter;

static void fail(lua_State *L, const char *what) {
    fprintf(stderr, "CLuaReference: %s: %s\n", what, lua_tostring(L, -1));
    abort();
}

static int compile(lua_State *L, const char *source, const char *name) {
    if (luaL_loadbufferx(L, source, strlen(source), name, "t") != LUA_OK) fail(L, name);
    if (lua_pcall(L, 0, 1, 0) != LUA_OK) fail(L, name);
    return luaL_ref(L, LUA_REGISTRYINDEX);
}

static int increment(lua_State *L) {
    lua_pushinteger(L, luaL_checkinteger(L, 1) + 1);
    return 1;
}

static int counter_add(lua_State *L) {
    counter *c = luaL_checkudata(L, 1, COUNTER_TYPE);
    c->value += luaL_checkinteger(L, 2);
    return 0;
}

static const luaL_Reg counter_methods[] = {
    { "add", counter_add },
    { NULL, NULL },
};

clr_state *clr_open(void) {
    clr_state *state = calloc(1, sizeof *state);
    if (state == NULL) return NULL;
    lua_State *L = luaL_newstate();
    if (L == NULL) { free(state); return NULL; }
    luaL_openlibs(L);
    state->L = L;

    state->title = compile(L, "return function(row) return 'row ' .. row end", "=titles");
    state->function_loop = compile(L, "return function(f, n) for i = 1, n do f(i) end end", "=function loop");
    state->method_loop = compile(L, "return function(obj, n) for i = 1, n do obj:add(1) end end", "=method loop");
    state->sum_loop = compile(L, "return function(n) local x = 0 for i = 1, n do x = x + i end return x end", "=sum loop");

    lua_pushcfunction(L, increment);
    state->increment = luaL_ref(L, LUA_REGISTRYINDEX);

    /* The classic userdata: a named metatable whose __index is the methods table. */
    luaL_newmetatable(L, COUNTER_TYPE);
    luaL_newlib(L, counter_methods);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
    counter *c = lua_newuserdatauv(L, sizeof *c, 0);
    c->value = 0;
    luaL_setmetatable(L, COUNTER_TYPE);
    state->counter = luaL_ref(L, LUA_REGISTRYINDEX);

    /* The picker stands in for the host's picker object: a userdata with a metatable of
       its own, made once and pushed from the registry for every title. */
    state->picker_title = compile(L, "return function(p, i) return 'row ' .. i end", "=picker titles");
    luaL_newmetatable(L, PICKER_TYPE);
    lua_pop(L, 1);
    lua_newuserdatauv(L, sizeof(void *), 0);
    luaL_setmetatable(L, PICKER_TYPE);
    state->picker = luaL_ref(L, LUA_REGISTRYINDEX);
    return state;
}

void clr_close(clr_state *state) {
    if (state == NULL) return;
    lua_close(state->L);
    free(state);
}

uint64_t clr_call_title(clr_state *state, int64_t first, int64_t count) {
    lua_State *L = state->L;
    char buffer[64];
    uint64_t sink = 0;
    for (int64_t row = first; row < first + count; row++) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, state->title);
        lua_pushinteger(L, row);
        if (lua_pcall(L, 1, 1, 0) != LUA_OK) fail(L, "title");
        size_t length = 0;
        const char *text = lua_tolstring(L, -1, &length);
        if (text == NULL) fail(L, "title returned no string");
        size_t n = length < sizeof buffer ? length : sizeof buffer;
        memcpy(buffer, text, n);
        sink += n + (unsigned char)buffer[n - 1];
        lua_pop(L, 1);
    }
    return sink;
}

uint64_t clr_call_title_discarding(clr_state *state, int64_t first, int64_t count) {
    lua_State *L = state->L;
    for (int64_t row = first; row < first + count; row++) {
        lua_rawgeti(L, LUA_REGISTRYINDEX, state->title);
        lua_pushinteger(L, row);
        if (lua_pcall(L, 1, 0, 0) != LUA_OK) fail(L, "title");
    }
    return (uint64_t)count;
}

void clr_call_function_loop(clr_state *state, int64_t n) {
    lua_State *L = state->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, state->function_loop);
    lua_rawgeti(L, LUA_REGISTRYINDEX, state->increment);
    lua_pushinteger(L, n);
    if (lua_pcall(L, 2, 0, 0) != LUA_OK) fail(L, "function loop");
}

int64_t clr_call_method_loop(clr_state *state, int64_t n) {
    lua_State *L = state->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, state->method_loop);
    lua_rawgeti(L, LUA_REGISTRYINDEX, state->counter);
    lua_pushinteger(L, n);
    if (lua_pcall(L, 2, 0, 0) != LUA_OK) fail(L, "method loop");
    lua_rawgeti(L, LUA_REGISTRYINDEX, state->counter);
    int64_t total = ((counter *)lua_touserdata(L, -1))->value;
    lua_pop(L, 1);
    return total;
}

int64_t clr_run_sum_loop(clr_state *state, int64_t n) {
    lua_State *L = state->L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, state->sum_loop);
    lua_pushinteger(L, n);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) fail(L, "sum loop");
    int64_t x = lua_tointegerx(L, -1, NULL);
    lua_pop(L, 1);
    return x;
}

/* One row of a frame, as a C host keeps it for drawing. */
typedef struct picker_row {
    int64_t item;
    size_t length;
    char title[64];
} picker_row;

/* The message handler of the title calls: a failing title is reported with its traceback,
   as Wheel reports it. */
static int traceback(lua_State *L) {
    luaL_traceback(L, L, lua_tostring(L, 1), 1);
    return 1;
}

uint64_t clr_picker_frames(clr_state *state, int64_t *selections, int components, int rows,
                           int64_t count, int64_t step, int64_t frames) {
    lua_State *L = state->L;
    picker_row frame[CLR_PICKER_MAX_COMPONENTS][CLR_PICKER_MAX_ROWS];
    if (components < 1 || components > CLR_PICKER_MAX_COMPONENTS || rows < 1 || rows > CLR_PICKER_MAX_ROWS
        || count < 1 || step < 0) {
        fprintf(stderr, "CLuaReference: clr_picker_frames: bad picker shape\n");
        abort();
    }
    int above = (rows - 1) / 2;   /* the rows above the selection, as in CircularWheel */
    uint64_t sink = 0;
    for (int64_t f = 0; f < frames; f++) {
        /* One handler below the frame's calls; each call leaves the stack as it found it. */
        lua_pushcfunction(L, traceback);
        int handler = lua_gettop(L);
        for (int c = 0; c < components; c++) {
            selections[c] = (selections[c] + step % count) % count;
            for (int r = 0; r < rows; r++) {
                /* selection + offset wrapped into 0 ..< count; offset = r - above. */
                int64_t item = (selections[c] + (r - above) % count + count) % count;
                lua_rawgeti(L, LUA_REGISTRYINDEX, state->picker_title);
                lua_rawgeti(L, LUA_REGISTRYINDEX, state->picker);
                lua_pushinteger(L, item + 1);   /* scripts count from 1 */
                if (lua_pcall(L, 2, 1, handler) != LUA_OK) fail(L, "picker title");
                size_t length = 0;
                const char *text = lua_tolstring(L, -1, &length);
                if (text == NULL) fail(L, "picker title returned no string");
                picker_row *row = &frame[c][r];
                row->item = item;
                row->length = length < sizeof row->title ? length : sizeof row->title;
                memcpy(row->title, text, row->length);
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 1);   /* the handler */
        /* The host reads the frame it drew: the checksum is over the rows as stored. */
        for (int c = 0; c < components; c++) {
            for (int r = 0; r < rows; r++) {
                picker_row *row = &frame[c][r];
                sink += row->length + (row->length > 0 ? (unsigned char)row->title[row->length - 1] : 0);
            }
        }
    }
    return sink;
}

/* ---- Pagers ---- */

enum { PAGER_TITLE, PAGER_TEXT, PAGER_SUBTITLE, PAGER_FIELDS };

/* A bound page as a C host keeps it for drawing: its fields, copied out of Lua. */
typedef struct pager_page {
    int64_t index;                  /* -1: the slot holds no page */
    char *fields[PAGER_FIELDS];     /* NULL for an empty field */
    size_t lengths[PAGER_FIELDS];
} pager_page;

struct clr_pager {
    clr_state *state;
    int *records;                   /* a registry reference per record */
    int64_t count;
    int keep;
    int bind_function;              /* a registry reference, or LUA_NOREF: the paths */
    int64_t current;
    int64_t first, last;            /* the bound window; empty when first > last */
    pager_page *slots;              /* 2 keep + 1 of them: page i is in slot i % (2 keep + 1) */
};

static void pager_fail(const char *what) {
    fprintf(stderr, "CLuaReference: pager: %s\n", what);
    abort();
}

/* Copies the string (or number) on top of the stack into the page's field and pops it;
   anything else leaves the field empty. */
static void pager_copy_field(lua_State *L, pager_page *page, int field) {
    size_t length = 0;
    const char *text = lua_isstring(L, -1) ? lua_tolstring(L, -1, &length) : NULL;
    page->fields[field] = NULL;
    page->lengths[field] = 0;
    if (text != NULL && length > 0) {
        char *copy = malloc(length + 1);
        if (copy == NULL) pager_fail("out of memory");
        memcpy(copy, text, length);
        copy[length] = '\0';
        page->fields[field] = copy;
        page->lengths[field] = length;
    }
    lua_pop(L, 1);
}

static uint64_t pager_bind(clr_pager *pager, int64_t index) {
    lua_State *L = pager->state->L;
    pager_page *page = &pager->slots[index % (2 * pager->keep + 1)];
    if (page->index >= 0) pager_fail("a page was bound over another");
    page->index = index;
    int top = lua_gettop(L);
    if (pager->bind_function == LUA_NOREF) {
        /* title = "from_user", text = "text", subtitle = "user.name" */
        lua_rawgeti(L, LUA_REGISTRYINDEX, pager->records[index]);
        if (lua_type(L, -1) != LUA_TTABLE) pager_fail("a record is not a table");
        lua_getfield(L, -1, "from_user");
        pager_copy_field(L, page, PAGER_TITLE);
        lua_getfield(L, -1, "text");
        pager_copy_field(L, page, PAGER_TEXT);
        if (lua_getfield(L, -1, "user") == LUA_TTABLE) {
            lua_getfield(L, -1, "name");
            pager_copy_field(L, page, PAGER_SUBTITLE);
        } else {
            page->fields[PAGER_SUBTITLE] = NULL;
            page->lengths[PAGER_SUBTITLE] = 0;
        }
    } else {
        lua_pushcfunction(L, traceback);
        int handler = lua_gettop(L);
        lua_rawgeti(L, LUA_REGISTRYINDEX, pager->bind_function);
        lua_rawgeti(L, LUA_REGISTRYINDEX, pager->records[index]);
        lua_pushinteger(L, index + 1);   /* scripts count from 1 */
        if (lua_pcall(L, 2, 1, handler) != LUA_OK) fail(L, "pager bind function");
        if (lua_type(L, -1) != LUA_TTABLE) pager_fail("the bind function returned no table");
        lua_getfield(L, -1, "title");
        pager_copy_field(L, page, PAGER_TITLE);
        lua_getfield(L, -1, "text");
        pager_copy_field(L, page, PAGER_TEXT);
        lua_getfield(L, -1, "subtitle");
        pager_copy_field(L, page, PAGER_SUBTITLE);
    }
    lua_settop(L, top);
    /* The host reads the page it bound. */
    uint64_t sink = 0;
    for (int f = 0; f < PAGER_FIELDS; f++) {
        size_t length = page->lengths[f];
        sink += length + (length > 0 ? (unsigned char)page->fields[f][length - 1] : 0);
    }
    return sink;
}

static void pager_unbind(clr_pager *pager, int64_t index) {
    pager_page *page = &pager->slots[index % (2 * pager->keep + 1)];
    if (page->index != index) pager_fail("a page that is not bound was unbound");
    for (int f = 0; f < PAGER_FIELDS; f++) {
        free(page->fields[f]);
        page->fields[f] = NULL;
        page->lengths[f] = 0;
    }
    page->index = -1;
}

/* Makes page `to` current: unbinds what leaves the window, then binds what enters it. */
static uint64_t pager_move(clr_pager *pager, int64_t to) {
    int64_t first = to - pager->keep < 0 ? 0 : to - pager->keep;
    int64_t last = to + pager->keep > pager->count - 1 ? pager->count - 1 : to + pager->keep;
    uint64_t sink = 0;
    for (int64_t i = pager->first; i <= pager->last; i++) {
        if (i < first || i > last) pager_unbind(pager, i);
    }
    for (int64_t i = first; i <= last; i++) {
        if (i < pager->first || i > pager->last) sink += pager_bind(pager, i);
    }
    pager->first = first;
    pager->last = last;
    pager->current = to;
    return sink;
}

clr_pager *clr_pager_open(clr_state *state, const char *records_chunk, int64_t count,
                          const char *bind_function, int keep) {
    if (count < 1 || keep < 0 || keep > 100) pager_fail("bad pager shape");
    lua_State *L = state->L;
    clr_pager *pager = calloc(1, sizeof *pager);
    if (pager == NULL) return NULL;
    pager->state = state;
    pager->count = count;
    pager->keep = keep;
    pager->records = calloc((size_t)count, sizeof *pager->records);
    pager->slots = calloc((size_t)(2 * keep + 1), sizeof *pager->slots);
    if (pager->records == NULL || pager->slots == NULL) {
        free(pager->records);
        free(pager->slots);
        free(pager);
        return NULL;
    }
    for (int s = 0; s < 2 * keep + 1; s++) pager->slots[s].index = -1;

    if (luaL_loadbufferx(L, records_chunk, strlen(records_chunk), "=pager records", "t") != LUA_OK) fail(L, "pager records");
    lua_pushinteger(L, count);
    if (lua_pcall(L, 1, 1, 0) != LUA_OK) fail(L, "pager records");
    if (lua_type(L, -1) != LUA_TTABLE) pager_fail("the records chunk returned no list");
    for (int64_t i = 0; i < count; i++) {
        lua_rawgeti(L, -1, i + 1);
        pager->records[i] = luaL_ref(L, LUA_REGISTRYINDEX);
    }
    lua_pop(L, 1);
    pager->bind_function = bind_function == NULL ? LUA_NOREF : compile(L, bind_function, "=pager bind");

    pager->first = 0;
    pager->last = -1;
    (void)pager_move(pager, 0);
    return pager;
}

void clr_pager_close(clr_pager *pager) {
    if (pager == NULL) return;
    lua_State *L = pager->state->L;
    for (int64_t i = pager->first; i <= pager->last; i++) pager_unbind(pager, i);
    for (int64_t i = 0; i < pager->count; i++) luaL_unref(L, LUA_REGISTRYINDEX, pager->records[i]);
    if (pager->bind_function != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, pager->bind_function);
    free(pager->records);
    free(pager->slots);
    free(pager);
}

uint64_t clr_pager_swipes(clr_pager *pager, int64_t swipes) {
    uint64_t sink = 0;
    for (int64_t s = 0; s < swipes; s++) {
        sink += pager_move(pager, pager->current == pager->count - 1 ? 0 : pager->current + 1);
    }
    return sink;
}

int clr_trim_heap(void) {
#ifdef __GLIBC__
    return malloc_trim(0);
#else
    return 0;
#endif
}
