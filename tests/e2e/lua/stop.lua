-- response(): each thread stops itself after 5 responses.
local seen = 0
function response(status, headers, body)
  seen = seen + 1
  if seen >= 5 then wrk.thread:stop() end
end
