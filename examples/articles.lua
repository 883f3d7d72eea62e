-- A news archive: 200 articles in numbered pages of 20, fetched over HTTP as the user
-- scrolls. Run it with the fixture server:
--
--   wheel-run --serve examples/fixtures examples/articles.lua --events "scroll end; select 25"
--
-- `SERVER` is the address of the server `--serve` started.
assert(SERVER, "run this example with: wheel-run --serve examples/fixtures examples/articles.lua")

feed "articles" {
  page_size = 20,          -- the fixtures hold 20 articles a page
  prefetch = 5,            -- fetch the next page when the last visible row is 5 from the end
  first = 1,               -- the first page's key: pages are numbered
  fetch = function(page, size)
    local res = http.get(("%s/articles/%d.json"):format(SERVER, page))
    if res.status ~= 200 then error(("HTTP %d for page %d"):format(res.status, page)) end
    local body = json.decode(res.body)
    return body.items, body.next   -- next is null (json.null) on the last page
  end,
  id = function(article) return article.id end,
  row = function(article) return ("%s  %s"):format(article.date, article.title) end,
  on_select = function(article, index)
    print(("opening %s (row %d)"):format(article.url, index))
  end,
}
