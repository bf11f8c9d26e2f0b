-- Replays prepared requests for wrk. Usage: wrk -t 1 -s replay.lua <url> -- <file>
-- <file> holds one request per line: METHOD <tab> PATH <tab> BEARER TOKEN <tab> JSON BODY (may be empty).
-- Every connection takes the next line in turn, round robin.
dofile(debug.getinfo(1, "S").source:sub(2):match("(.*/)") .. "common.lua")

local requests = {}
local next = 0
local statuses = {}

local function load(path)
  for line in io.lines(path) do
    local method, p, token, body = line:match("^([^\t]*)\t([^\t]*)\t([^\t]*)\t?(.*)$")
    local headers = { ["authorization"] = "Bearer " .. token }
    if body ~= nil and body ~= "" then headers["content-type"] = "application/json" else body = nil end
    requests[#requests + 1] = wrk.format(method, p, headers, body)
  end
end

init = function(args)
  local file = args[1]
  -- wrk calls request() once on the first thread to check it before sending anything: that call gets a request of
  -- its own, or the thread's sequence would start at its second request.
  checking = index == 0
  load(file)
end

request = function()
  if checking then
    checking = false
    return wrk.format("GET", "/healthz")
  end
  next = next % #requests + 1
  return requests[next]
end

response = function(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  if status ~= 200 and (statuses[status] or 0) <= 2 then io.stderr:write("status " .. status .. ": " .. body:sub(1, 300) .. "\n") end
end
