-- wrk script: every request asks for a different random observer.
-- NEARBY_PATH is the route, NEARBY_EXTRA extra query parameters (e.g. "&mode=extended").
local path = os.getenv("NEARBY_PATH") or "/api/v1/satellites/nearby"
local extra = os.getenv("NEARBY_EXTRA") or ""

function init(args)
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000)
end

request = function()
  -- Uniform over the sphere: latitude from the arcsine of a uniform number.
  local lat = math.deg(math.asin(2 * math.random() - 1))
  local lon = math.random() * 360 - 180
  return wrk.format("GET", string.format("%s?latitude=%.4f&longitude=%.4f%s", path, lat, lon, extra))
end
