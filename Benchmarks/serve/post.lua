-- wrk script: POST /v1/scans with the photos listed in the file named by SEER_PHOTO_LIST, in turn.
-- SEER_KEY is the device key; each thread starts at a different photo.
--
-- Each request is formatted once, when a thread starts, and sent as it is from then on; `response`
-- and `delay` are defined only when Retry-After is honoured (wrk reads every response into Lua when
-- a script defines `response`). The load generator runs on the server's cores: what it spends per
-- request is taken from the server.
local requests = {}
local index = 0

local function load()
  local list = assert(io.open(os.getenv("SEER_PHOTO_LIST"), "r"))
  local headers = { Authorization = "Bearer " .. os.getenv("SEER_KEY") }
  for path in list:lines() do
    local file = assert(io.open(path, "rb"))
    local body = file:read("*a")
    file:close()
    headers["Content-Type"] = path:lower():match("%.png$") and "image/png" or "image/jpeg"
    requests[#requests + 1] = wrk.format("POST", "/v1/scans", headers, body)
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
  index = (start or 0) % #requests
end

function request()
  index = index % #requests + 1
  return requests[index]
end

-- With SEER_HONOUR_RETRY_AFTER=1, clients wait as a 503's Retry-After asks before their next
-- request (one wait per 503 answered on the thread), as a well-behaved app does.
if os.getenv("SEER_HONOUR_RETRY_AFTER") == "1" then
  local waits = 0

  function response(status, headers, body)
    if status == 503 then
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
end

function done(summary, latency, requests)
  io.write(string.format(
    "RESULT requests=%d seconds=%.3f p50_ms=%.1f p99_ms=%.1f max_ms=%.1f non2xx=%d timeouts=%d errors=%d\n",
    summary.requests, summary.duration / 1e6, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    latency.max / 1000, summary.errors.status, summary.errors.timeout,
    summary.errors.connect + summary.errors.read + summary.errors.write))
end
