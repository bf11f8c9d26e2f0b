// Preloaded by the hook bench (`node -r`): appends this process's CPU time (user + system, all its threads, in ms) to
// $BENCH_CPU_FILE when it exits, so the bench reports what a hook costs the machine next to how long it took.
const { appendFileSync } = require('node:fs');

process.on('exit', () => {
  const { user, system } = process.cpuUsage();
  appendFileSync(process.env.BENCH_CPU_FILE, `${(user + system) / 1000}\n`);
});
