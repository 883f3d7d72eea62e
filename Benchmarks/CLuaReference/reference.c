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

#define COUNTER_TYPE "clr.Counter"

struct clr_state {
    lua_State *L;
    int title;          /* registry refs of the compiled case functions */
    int function_loop;
    int method_loop;
    int sum_loop;
    int increment;      /* the C function f of the Lua→C case */
    int counter;        /* the userdata of the method case */
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
