-- Steps checklist runs for wrk on one thread, as the other rows' load is sent (-t 1). <file>.0, <file>.1, … (one per
-- session) hold the runs, one line per run: RUN ID <tab> FIRST STEP ATTEMPT <tab> BEARER TOKEN. Each step's answer
-- (the run's view) names its run and the run's next attempt: that step is queued, and the next connection ready to send
-- sends the oldest queued step. wrk hands a connection's answer to response() before it asks request() for that
-- connection's next request, so a step is always queued then, and each run has one step in flight at a time, whichever
-- connection carries it. A run done (no attempt left), or refused, gives way to the next run not started; with none
-- left the thread stops. A step whose answer never comes (wrk timed it out, or its connection was cut) leaves its run:
-- the connection asks again, and sends a queued step or a new run's first.
-- Usage: wrk -t 1 -c N -s run-steps.lua <url> -- <file>
dofile(debug.getinfo(1, "S").source:sub(2):match("(.*/)") .. "common.lua")

local fresh = {}
local nextFresh = 1
local tokens = {}
local answered = {}
local queue = {}
local first, last = 1, 0

local function push(run, attempt)
  last = last + 1
  queue[last] = { run = run, attempt = attempt }
end

local function pushFresh()
  local r = fresh[nextFresh]
  if not r then return false end
  nextFresh = nextFresh + 1
  push(r.run, r.first)
  return true
end

init = function(args)
  -- The files' runs in turns (each file's first, then each one's second, …): the runs in flight span the sessions.
  local files = {}
  while true do
    local file = io.open(args[1] .. "." .. #files, "r")
    if not file then break end
    local runs = {}
    for line in file:lines() do
      local run, attempt, token = line:match("^([^\t]*)\t([^\t]*)\t([^\t]*)$")
      if run then
        runs[#runs + 1] = { run = run, first = attempt }
        tokens[run] = token
        answered[run] = 0
      end
    end
    file:close()
    files[#files + 1] = runs
  end
  for k = 1, math.huge do
    local any = false
    for _, runs in ipairs(files) do
      if runs[k] then
        fresh[#fresh + 1] = runs[k]
        any = true
      end
    end
    if not any then break end
  end
  -- wrk calls request() once on the first thread to check it before sending anything: that call gets its own.
  checking = index == 0
end

request = function()
  if checking then
    checking = false
    return wrk.format("GET", "/healthz")
  end
  if first > last and not pushFresh() then
    io.stderr:write("out of runs: thread " .. index .. " stopped\n")
    wrk.thread:stop()
    return wrk.format("GET", "/healthz")
  end
  local step = queue[first]
  queue[first] = nil
  first = first + 1
  local n = answered[step.run] + 1
  local body = '{"runId":"' .. step.run .. '","attemptId":"' .. step.attempt .. '","evidence":"check ' .. n ..
    ' passed","progress_execution_outcome":"step ' .. n .. ' verified"}'
  return wrk.format("POST", "/trpc/runs.step", { ["content-type"] = "application/json", ["authorization"] = "Bearer " .. tokens[step.run] }, body)
end

response = function(status, headers, body)
  if status ~= 200 then
    -- Not answered as a step (a refusal): that run is left, and the next one takes its place.
    io.stderr:write("status " .. status .. ": " .. body:sub(1, 300) .. "\n")
    pushFresh()
    return
  end
  -- The view opens with its run's id; its attempt (a UUID; runs made before ids were UUIDs had att_… ones) comes soon
  -- after: any quoted value but null, which a completed run has.
  local run = body:match('^{"result":{"data":{"id":"([^"]+)"')
  local next = body:match('"data":{.-"attemptId":"([^"]+)"')
  if run and next and answered[run] then
    answered[run] = answered[run] + 1
    push(run, next)
  else
    pushFresh()
  end
end
