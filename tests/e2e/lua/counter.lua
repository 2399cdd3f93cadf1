-- request(): a different path each time, numbered per thread.
local n = 0
function request()
  n = n + 1
  return wrk.format(nil, "/item/" .. n)
end
