-- A clock: hours 1-12 and minutes 00-59 wrap round; AM/PM, a list shorter than the
-- visible rows, does not (wrap = "auto" decides by length).
--   swift run wheel-run examples/clock.lua --events "spin minute -31; spin hour +3"

local function describe(p)
  return ("%s:%s %s"):format(p:item("hour"), p:item("minute"), p:item("ampm"))
end

local p = picker "clock" {
  components = {
    { id = "hour", count = 12, selected = 10 },                -- no title: the row numbers 1-12
    { id = "minute", count = 60, selected = 31,
      title = function(p, i) return ("%02d"):format(i - 1) end },
    { id = "ampm", items = { "AM", "PM" } },
  },
  on_change = function(p) p.status = describe(p) end,
}
p.status = describe(p)                                       -- 10:30 AM
