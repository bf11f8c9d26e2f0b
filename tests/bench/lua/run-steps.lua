-- Steps checklist runs for wrk, one connection per thread: thread i walks the runs in <file>.<i>, one line per run:
-- RUN ID <tab> FIRST STEP ATTEMPT <tab> BEARER TOKEN. Each step answers with the run's next attempt, which the next
-- step sends; a run done (no attempt left) moves the thread on to its next run, and a thread out of runs stops.
-- A request sent again (wrk timed it out, or its connection was cut) has the same body as before, so the server
-- answers it as the attempt it already recorded rather than refusing a different answer to that attempt (409).
-- Usage: wrk -t N -c N -s run-steps.lua <url> -- <file>
dofile(debug.getinfo(1, "S").source:sub(2):match("(.*/)") .. "common.lua")

local runs = {}
local current = 1
local attempt = nil
local step = 0

init = function(args)
  for line in io.lines(args[1] .. "." .. index) do
    local run, first, token = line:match("^([^\t]*)\t([^\t]*)\t([^\t]*)$")
    runs[#runs + 1] = { run = run, first = first, token = token }
  end
  -- wrk calls request() once on the first thread to check it before sending anything: that call gets its own.
  checking = index == 0
  attempt = runs[1].first
end

request = function()
  if checking then
    checking = false
    return wrk.format("GET", "/healthz")
  end
  local r = runs[current]
  local n = step + 1
  local body = '{"runId":"' .. r.run .. '","attemptId":"' .. attempt .. '","evidence":"check ' .. n ..
    ' passed","progress_execution_outcome":"step ' .. n .. ' verified"}'
  return wrk.format("POST", "/trpc/runs.step", { ["content-type"] = "application/json", ["authorization"] = "Bearer " .. r.token }, body)
end

response = function(status, headers, body)
  if status ~= 200 then
    io.stderr:write("status " .. status .. ": " .. body:sub(1, 300) .. "\n")
    return
  end
  -- The next attempt's id (a UUID; runs made before ids were UUIDs had att_… ones): any quoted value but null.
  local next = body:match('"data":{.-"attemptId":"([^"]+)"')
  if next then
    attempt = next
    step = step + 1
  elseif current < #runs then
    current = current + 1
    attempt = runs[current].first
    step = 0
  else
    io.stderr:write("out of runs: thread " .. index .. " stopped\n")
    wrk.thread:stop()
  end
end
