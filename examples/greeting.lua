-- A module for examples/hello.lua.
local greeting = {}

function greeting.hello(name)
  return ("hello, %s: Lua %s in a sandbox"):format(name, _VERSION:match("%d+%.%d+"))
end

return greeting
