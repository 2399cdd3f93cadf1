-- response() reads a header of the first response and request() sends it on.
local token
function request()
  if token then return wrk.format("GET", "/with-token", {["X-Token"] = token}) end
  return wrk.format("GET", "/login")
end
function response(status, headers, body)
  if not token and headers["X-Token"] then token = headers["X-Token"] end
end
