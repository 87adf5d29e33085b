-- wrk script: POST /v1/scans with the photos listed in the file named by SEER_PHOTO_LIST, in turn.
-- SEER_KEY is the device key; each thread starts at a different photo.
local bodies = {}
local types = {}
local index = 0

local function load()
  local list = assert(io.open(os.getenv("SEER_PHOTO_LIST"), "r"))
  for path in list:lines() do
    local file = assert(io.open(path, "rb"))
    bodies[#bodies + 1] = file:read("*a")
    file:close()
    types[#types + 1] = path:lower():match("%.png$") and "image/png" or "image/jpeg"
  end
  list:close()
end

local counter = 0
function setup(thread)
  counter = counter + 1
  thread:set("start", counter * 7)
end

function init(args)
  load()
  index = (start or 0) % #bodies
end

function request()
  index = index % #bodies + 1
  local headers = {}
  headers["Authorization"] = "Bearer " .. os.getenv("SEER_KEY")
  headers["Content-Type"] = types[index]
  return wrk.format("POST", "/v1/scans", headers, bodies[index])
end

-- With SEER_HONOUR_RETRY_AFTER=1, clients wait as a 503's Retry-After asks before their next
-- request (one wait per 503 answered on the thread), as a well-behaved app does.
local honour = os.getenv("SEER_HONOUR_RETRY_AFTER") == "1"
local waits = 0

function response(status, headers, body)
  if honour and status == 503 then
    waits = waits + 1
  end
end

function delay()
  if waits > 0 then
    waits = waits - 1
    return 1000
  end
  return 0
end

function done(summary, latency, requests)
  io.write(string.format(
    "RESULT requests=%d seconds=%.3f p50_ms=%.1f p99_ms=%.1f max_ms=%.1f non2xx=%d timeouts=%d errors=%d\n",
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000, summary.errors.status, summary.errors.timeout,
    summary.errors.connect + summary.errors.read + summary.errors.write))
end
