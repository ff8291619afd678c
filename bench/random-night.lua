-- wrk script for GET /api/v1/passes: every request asks for a different random observer
-- (latitude -60..60, any longitude) and the 12 hours from 18:00 local mean solar time on
-- PASSES_DATE (e.g. 2026-05-30): a night, wherever the observer is. PASSES_EXTRA: more
-- query parameters (e.g. "&visible-only=true" or "&group=stations").
local date = os.getenv("PASSES_DATE") or "2026-05-30"
local extra = os.getenv("PASSES_EXTRA") or ""
local year, month, day = date:match("(%d+)-(%d+)-(%d+)")

function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000)
end

request = function()
  local lat = math.deg(math.asin(math.random() * 2 * math.sin(math.rad(60)) - math.sin(math.rad(60))))
  local lon = math.random() * 360 - 180
  -- 18:00 local mean solar time in UTC: 18 h - longitude / 15° per hour.
  local seconds = os.time({ year = tonumber(year), month = tonumber(month), day = tonumber(day), hour = 0, isdst = false })
  local utcOffset = os.time(os.date("*t", 0)) - os.time(os.date("!*t", 0))
  seconds = seconds + utcOffset + math.floor((18 - lon / 15) * 3600)
  local time = os.date("!%Y-%m-%dT%H:%M:%SZ", seconds)
  return wrk.format("GET", string.format("/api/v1/passes?latitude=%.4f&longitude=%.4f&time=%s&hours=12%s", lat, lon, time, extra))
end
