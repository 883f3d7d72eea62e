-- A first Wheel script: it only logs. Run it with
--   swift run wheel-run examples/hello.lua
local greeting = require "greeting"          -- examples/greeting.lua: Lua files beside the script

print(greeting.hello("Wheel"))

-- json is lua-cjson, preloaded and strict.
local colors = json.decode('["black", "brown", "red", "orange"]')
print(("%d colours, the third is %s"):format(#colors, colors[3]))
print(json.encode({ bands = 4, tolerance = "5%" }))

-- Coroutines work as in any Lua.
local countdown = coroutine.wrap(function()
  for i = 3, 1, -1 do coroutine.yield(i) end
end)
print(countdown(), countdown(), countdown())

-- The sandbox says no, clearly.
print(pcall(function() return io.open("/etc/passwd") end))
