-- A timeline of tweets in a pager: one tweet per page (author, text, avatar), only the
-- current page and its neighbours bound. The tweets come from a feed over HTTP, in the
-- shape of the classic search API; tapping a page opens the tweet. Run it with:
--
--   wheel-run --serve examples/fixtures examples/tweets.lua --events "swipe left; jump 40; tap"
assert(SERVER, "run this example with: wheel-run --serve examples/fixtures examples/tweets.lua")

feed "search" {
  page_size = 20,
  fetch = function(page, size)
    local res = http.get(("%s/search/%d.json"):format(SERVER, page))
    if res.status ~= 200 then error(("HTTP %d for page %d"):format(res.status, page)) end
    local body = json.decode(res.body)
    for _, tweet in ipairs(body.results) do
      tweet.profile_image_url = SERVER .. tweet.profile_image_url   -- the fixtures' avatars
    end
    return body.results, body.next_page
  end,
  id = function(tweet) return tweet.id end,
  row = function(tweet) return tweet.from_user .. ": " .. tweet.text end,
}

pager "timeline" {
  source = "search",
  keep = 1,
  bind = { title = "from_user", text = "text", image = "profile_image_url", date = "created_at" },
  on_tap = function(tweet)
    return url("https://twitter.com/{from_user}/status/{id}", tweet)
  end,
}
