-- wrk script: every request asks for a different random observer.
-- NEARBY_PATH is the route, NEARBY_EXTRA extra query parameters (e.g. "&mode=extended").
-- NEARBY_SPREAD_DAYS, when set, adds a random `time` within that many days of now
-- (to the millisecond, so practically every request asks for an instant no other asked for);
-- NEARBY_CENTER (seconds since 1970), when set, is the middle of that spread instead of now
-- (make bench: the embedded elements' epoch).
local path = os.getenv("NEARBY_PATH") or "/api/v1/satellites/nearby"
local extra = os.getenv("NEARBY_EXTRA") or ""
local spreadDays = tonumber(os.getenv("NEARBY_SPREAD_DAYS") or "")
local center = tonumber(os.getenv("NEARBY_CENTER") or "")

function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000)
end

local function randomTime()
  local seconds = (center or os.time()) + math.floor((2 * math.random() - 1) * spreadDays * 86400)
  return string.format("&time=%s.%03dZ", os.date("!%Y-%m-%dT%H:%M:%S", seconds), math.random(0, 999))
end

request = function()
  -- Uniform over the sphere: latitude from the arcsine of a uniform number.
  local lat = math.deg(math.asin(2 * math.random() - 1))
  local lon = math.random() * 360 - 180
  local time = spreadDays and randomTime() or ""
  return wrk.format("GET", string.format("%s?latitude=%.4f&longitude=%.4f%s%s", path, lat, lon, time, extra))
end
