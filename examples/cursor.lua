-- Cursor pagination: each reply carries the cursor of the next page, and the last one
-- none. Run it with the fixture server:
--
--   wheel-run --serve examples/fixtures examples/cursor.lua --events "scroll end; scroll end"
assert(SERVER, "run this example with: wheel-run --serve examples/fixtures examples/cursor.lua")

feed "messages" {
  page_size = 12,
  prefetch = 3,
  first = "start",         -- the first page's cursor
  fetch = function(cursor, size)
    local res = http.get(SERVER .. "/cursor/" .. cursor .. ".json")
    if res.status ~= 200 then error("HTTP " .. res.status .. " for cursor " .. cursor) end
    local body = json.decode(res.body)
    return body.messages, body.cursor
  end,
  id = function(message) return message.id end,
  row = function(message) return message.from .. ": " .. message.text end,
}
