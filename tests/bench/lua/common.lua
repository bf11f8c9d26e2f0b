-- What the bench's wrk scripts share: a number for each thread, and one parseable line of figures at the end.
local threads = 0
setup = function(thread)
  thread:set("index", threads)
  threads = threads + 1
end

done = function(summary, latency, requests)
  io.write(string.format("BENCH requests=%d errors=%d p50=%.3f p90=%.3f p99=%.3f max=%.3f duration_us=%d\n",
    summary.requests, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.status + summary.errors.timeout,
    latency:percentile(50) / 1000, latency:percentile(90) / 1000, latency:percentile(99) / 1000, latency.max / 1000, summary.duration))
end
