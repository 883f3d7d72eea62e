-- A 4-band resistor colour code: two digit bands, a multiplier and a tolerance band.
--   swift run wheel-run examples/resistor.lua
--   swift run wheel-run examples/resistor.lua --events "spin band1 +1; select tolerance 4"
-- The colour lists are longer than the seven visible rows, so their wheels wrap; the
-- four tolerance colours are not, so that wheel stops at its ends (wrap = "auto").

local colors = { "black", "brown", "red", "orange", "yellow",
                 "green", "blue", "violet", "grey", "white" }
local multipliers = { "black", "brown", "red", "orange", "yellow", "green",
                      "blue", "violet", "grey", "white", "gold", "silver" }

local digit, factor = {}, { gold = 0.1, silver = 0.01 }
for i, color in ipairs(colors) do
  digit[color] = i - 1
  factor[color] = 10 ^ (i - 1)
end
local tolerance = { brown = "±1%", red = "±2%", gold = "±5%", silver = "±10%" }

-- 4700 -> "4.7 kΩ", 0.47 -> "0.47 Ω"
local function ohms(value)
  local scale, prefix = 1, ""
  for _, unit in ipairs { { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" } } do
    if value >= unit[1] then scale, prefix = unit[1], unit[2] break end
  end
  local digits = ("%.2f"):format(value / scale):gsub("0+$", ""):gsub("%.$", "")
  return digits .. " " .. prefix .. "Ω"
end

local function describe(p)
  local value = (10 * digit[p:item("band1")] + digit[p:item("band2")]) * factor[p:item("multiplier")]
  return ohms(value) .. " " .. tolerance[p:item("tolerance")]
end

local p = picker "resistor" {
  components = {
    { id = "band1", items = colors, selected = 5 },          -- yellow: 4
    { id = "band2", items = colors, selected = 8 },          -- violet: 7
    { id = "multiplier", items = multipliers, selected = 3 }, -- red: x100
    { id = "tolerance", items = { "brown", "red", "gold", "silver" }, selected = 3 },
  },
  on_change = function(p) p.status = describe(p) end,
}
p.status = describe(p)                                       -- 4.7 kΩ ±5%
