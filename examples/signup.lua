-- A sign-up form longer than the screen: eleven fields, one of them a picker of states,
-- checked as the user leaves each field and all together on submit.
--
--   wheel-run examples/signup.lua --events 'focus email; type "ana@example"; next; submit'

local states = {
  "Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado", "Connecticut",
  "Delaware", "Florida", "Georgia", "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa",
  "Kansas", "Kentucky", "Louisiana", "Maine", "Maryland", "Massachusetts", "Michigan",
  "Minnesota", "Mississippi", "Missouri", "Montana", "Nebraska", "Nevada", "New Hampshire",
  "New Jersey", "New Mexico", "New York", "North Carolina", "North Dakota", "Ohio",
  "Oklahoma", "Oregon", "Pennsylvania", "Rhode Island", "South Carolina", "South Dakota",
  "Tennessee", "Texas", "Utah", "Vermont", "Virginia", "Washington", "West Virginia",
  "Wisconsin", "Wyoming",
}

-- The picker behind the State field: the keyboard's place shows this wheel.
picker "states" {
  rows = 5,
  components = { { id = "state", items = states } },
}

local function between(low, high, what)
  return function(n)
    if n == nil then return true end
    if n ~= math.floor(n) then return false, what .. " is a whole number" end
    return n >= low and n <= high, ("%s must be %d to %d"):format(what, low, high)
  end
end

form "signup" {
  status = "Fields marked * are required",
  fields = {
    { id = "first", label = "First name", required = true },
    { id = "last", label = "Last name", required = true },
    { id = "email", label = "E-mail", kind = "email", required = true,
      validate = function(v)
        return not v:lower():find("@example%.com$"), "example.com is not a real mailbox"
      end },
    { id = "confirm", label = "E-mail again", kind = "email", required = true,
      validate = function(v, f) return v == f:value("email"), "does not match the e-mail" end },
    { id = "phone", label = "Phone", placeholder = "+1 555 0100",
      validate = function(v)
        local digits = v:gsub("[%s%-%(%)%.]", "")
        return v == "" or digits:find("^%+?%d+$") ~= nil and #digits >= 7, "digits, spaces and dashes only"
      end },
    { id = "age", label = "Age", kind = "number", validate = between(13, 120, "age") },
    { id = "street", label = "Street", required = true },
    { id = "city", label = "City", required = true },
    { id = "state", label = "State", kind = "picker", picker = "states", required = true },
    { id = "zip", label = "ZIP code", required = true,
      validate = function(v) return v:find("^%d%d%d%d%d$") ~= nil, "five digits" end },
    { id = "about", label = "About you", kind = "multiline", lines = 2, placeholder = "a few words",
      validate = function(v) return #v <= 280, ("%d characters; 280 at most"):format(#v) end },
  },
  on_submit = function(values, f)
    f.status = ("Welcome, %s %s of %s, %s!"):format(values.first, values.last, values.city, values.state)
    print("signed up " .. values.email)
  end,
}
