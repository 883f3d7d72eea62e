/* The Lua 5.4 C API and lua-cjson's entry point, from Debian's liblua5.4-dev and lua-cjson-dev. */
#ifndef WHEEL_CLUA_H
#define WHEEL_CLUA_H
#include <lua.h>
#include <lualib.h>
#include <lauxlib.h>
#include <lua-cjson.h>
#endif
