-- setup/thread:set/get and done(summary, latency, requests): a summary printed after
-- the report, per thread counts collected from the thread states.
local threads = {}
function setup(thread)
  thread:set("id", #threads + 1)
  threads[#threads + 1] = thread
end
function init(args) responses, statuses = 0, {} end
function response(status, headers, body)
  responses = responses + 1
  statuses[status] = (statuses[status] or 0) + 1
  last_type, last_len = headers["Content-Type"], #body
end
function done(summary, latency, requests)
  local total = 0
  for _, t in ipairs(threads) do
    io.write(string.format("thread %d: %d responses\n", t:get("id"), t:get("responses")))
    total = total + t:get("responses")
    local st = t:get("statuses")
    io.write(string.format("thread %d: status 200 x%d, %s, body %d bytes\n", t:get("id"),
      st[200] or 0, t:get("last_type"), t:get("last_len")))
  end
  io.write(string.format("summary: %d requests, %d bytes, %d us, errors %d/%d/%d/%d/%d\n",
    summary.requests, summary.bytes, summary.duration, summary.errors.connect,
    summary.errors.read, summary.errors.write, summary.errors.status, summary.errors.timeout))
  io.write(string.format("responses seen by the scripts: %d\n", total))
  io.write(string.format("latency: min %.1f max %.1f mean %.1f stdev %.1f p50 %.1f p99 %.1f us, %d values\n",
    latency.min, latency.max, latency.mean, latency.stdev, latency:percentile(50),
    latency:percentile(99), #latency))
  local v, c = latency(1)
  io.write(string.format("first value %.3f us x%d\n", v, c))
  io.write(string.format("req/s: %d samples, max %d\n", #requests, requests.max))
end
