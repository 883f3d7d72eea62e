-- A date picker: day, month, year. The days follow the month and leap years: choosing a
-- month or a year reloads the days, and a day that no longer exists (the 31st in April,
-- the 29th of February in 2025) moves to the month's last day.
--   swift run wheel-run examples/date.lua --events "spin year +1"

local months = { "January", "February", "March", "April", "May", "June", "July",
                 "August", "September", "October", "November", "December" }
local FIRST_YEAR = 1900

local function leap(year)
  return year % 4 == 0 and (year % 100 ~= 0 or year % 400 == 0)
end

local function days_in(month, year)
  if month == 2 then return leap(year) and 29 or 28 end
  return ({ 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 })[month]
end

local function year(p) return FIRST_YEAR - 1 + p:index("year") end

local function describe(p)
  local day, month = p:index("day"), p:index("month")
  local time = os.time { year = year(p), month = month, day = day, hour = 12 }
  return ("%s %d %s %d"):format(os.date("!%A", time), day, months[month], year(p))
end

local p = picker "date" {
  components = {
    { id = "day", selected = 29,
      count = function(p) return days_in(p:index("month"), year(p)) end,
      title = function(p, i) return ("%02d"):format(i) end },
    { id = "month", items = months, selected = 2 },
    { id = "year", count = 200, wrap = false, selected = 2024 - FIRST_YEAR + 1,
      title = function(p, i) return tostring(FIRST_YEAR - 1 + i) end },
  },
  on_change = function(p, component)
    if component ~= "day" then p:reload("day") end   -- a clamped day comes back as a "day" change
    p.status = describe(p)
  end,
}
p.status = describe(p)                                -- Thursday 29 February 2024
