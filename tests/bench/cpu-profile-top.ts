// Summarises a V8 .cpuprofile (node --cpu-prof): the top functions by self time, and self time by package.
// Usage: tsx tests/bench/cpu-profile-top.ts <file.cpuprofile> [top N]
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Where a script belongs: an npm package name, node's internals, or the program's own code. */
export function packageOf(url: string): string {
  if (!url) return '(native / VM)';
  if (url.startsWith('node:')) return 'node: internals';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + '/node_modules/'.length).split('/');
    return rest[0]?.startsWith('@') ? `${rest[0]}/${rest[1]}` : (rest[0] ?? url);
  }
  if (url.includes('/generated/prisma/')) return '@prisma/client (generated)';
  if (url.includes('/dist/cli.js') || url.includes('/apps/server/')) return 'agent-tasks server';
  if (url.includes('/packages/')) return 'agent-tasks packages';
  return url;
}

export function summarize(profile: Profile, top = 25) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  let total = 0;
  let idle = 0;
  const fn = new Map<string, number>();
  const pkg = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    total += us;
    if (functionName === '(idle)') {
      idle += us;
      continue;
    }
    const where = url ? `${packageOf(url)} ${url.split('/').pop()}:${lineNumber + 1}` : '';
    const key = `${functionName || '(anonymous)'}  ${where}`.trim();
    fn.set(key, (fn.get(key) ?? 0) + us);
    const p = ['(garbage collector)', '(program)'].includes(functionName) ? functionName : packageOf(url);
    pkg.set(p, (pkg.get(p) ?? 0) + us);
  }
  const busy = total - idle;
  const rows = (m: Map<string, number>) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, us]) => `${((100 * us) / busy).toFixed(1).padStart(5)}%  ${(us / 1000).toFixed(0).padStart(7)} ms  ${name}`);
  return [
    `busy ${(busy / 1e6).toFixed(2)} s of ${(total / 1e6).toFixed(2)} s sampled (${((100 * busy) / total).toFixed(0)}% busy)`,
    '',
    'self time by package:',
    ...rows(pkg),
    '',
    `top ${top} functions by self time:`,
    ...rows(fn),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = process.argv[2];
  if (!file) throw new Error('usage: cpu-profile-top.ts <file.cpuprofile> [top N]');
  console.log(summarize(JSON.parse(readFileSync(file, 'utf8')) as Profile, Number(process.argv[3] ?? 25)));
}
