-- A request() hook as scripts commonly write it: a fresh request string per request.
function request()
  return wrk.format(nil, wrk.path)
end
