// Under overload: how long the first request of a brand-new connection waits (one new connection every 200 ms).
import http from 'node:http';
import { percentile } from './stats.ts';

export async function probeNewConnections(options: { url: string; token: string; seconds: number; delayMs: number }) {
  await new Promise((resolve) => setTimeout(resolve, options.delayMs));
  const url = new URL(options.url);
  const body = JSON.stringify({ todos: [{ content: 'A new connection', status: 'in_progress' }] });
  const latencies: number[] = [];
  let errors = 0;
  const pending: Promise<void>[] = [];
  const end = performance.now() + options.seconds * 1000;
  while (performance.now() < end) {
    const started = performance.now();
    pending.push(
      new Promise<void>((resolve) => {
        const req = http.request(
          {
            host: url.hostname,
            port: url.port,
            method: 'POST',
            path: '/trpc/todos.write',
            agent: false,
            headers: {
              'content-type': 'application/json',
              'content-length': Buffer.byteLength(body),
              authorization: `Bearer ${options.token}`,
              connection: 'close',
            },
          },
          (res) => {
            res.resume();
            res.on('end', () => {
              if (res.statusCode === 200) latencies.push(performance.now() - started);
              else errors++;
              resolve();
            });
          },
        );
        req.on('error', () => {
          errors++;
          resolve();
        });
        req.end(body);
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await Promise.all(pending);
  const sorted = latencies.sort((a, b) => a - b);
  return { count: sorted.length, errors, p50: percentile(sorted, 50), max: sorted.at(-1) ?? 0 };
}
