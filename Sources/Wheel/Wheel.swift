import Lua
