// The dashboard's first load stays small: the JavaScript that the built index.html loads (its module script and
// preloads) is at most 300 KB gzipped; the graph view and admin pages come later, on demand.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { expect, it } from 'vitest';

const dist = path.resolve(import.meta.dirname, '../apps/web/dist');
const BUDGET = 300 * 1024;

it('loads at most 300 KB of gzipped JavaScript first', () => {
  const html = readFileSync(path.join(dist, 'index.html'), 'utf8');
  const scripts = [
    ...html.matchAll(/<script[^>]*\bsrc="([^"]+\.js)"/g),
    ...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+\.js)"/g),
  ].map((m) => m[1]!);
  expect(scripts.length).toBeGreaterThan(0);
  expect(scripts.every((src) => src.startsWith('/assets/'))).toBe(true);
  const sizes = scripts.map((src) => ({ src, gzip: gzipSync(readFileSync(path.join(dist, src))).length }));
  const total = sizes.reduce((sum, s) => sum + s.gzip, 0);
  console.log(
    `first-load JavaScript: ${(total / 1024).toFixed(1)} KB gzipped (${sizes.map((s) => `${s.src} ${(s.gzip / 1024).toFixed(1)} KB`).join(', ')})`,
  );
  expect(total).toBeLessThanOrEqual(BUDGET);
  // The graph layout library is not part of it.
  for (const { src } of sizes) expect(readFileSync(path.join(dist, src), 'utf8')).not.toContain('network-simplex');
});
