-- init(args): three requests in one string, sent together (wrk's pipelining);
-- args[1] names the paths' prefix.
local batch
function init(args)
  local prefix = args[1] or "/p"
  local parts = {}
  for i = 1, 3 do parts[i] = wrk.format(nil, prefix .. i) end
  batch = table.concat(parts)
end
function request() return batch end
