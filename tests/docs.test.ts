// The docs as a front door: a short README, an ARCHITECTURE.md that fits a 140-column screen, a "where each rule
// lives" table whose every file:function exists, and relative links (files and #anchors) that resolve.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');
const docs = [
  'README.md',
  'ARCHITECTURE.md',
  ...readdirSync(path.join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const anchorOf = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
const anchorsOf = (text: string) =>
  new Set([...text.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1]!)));

/** The rule table's short paths: `core/x.ts` is `packages/core/src/x.ts`. */
const shorthand: Record<string, string> = { core: 'packages/core/src', schema: 'packages/schema/src', server: 'apps/server/src' };

/** The rows of the table under `## <heading>`: its cells, header and rule lines left out. */
function tableRows(text: string, heading: string): string[][] {
  const start = text.indexOf(`\n## ${heading}\n`);
  expect(start, `a "## ${heading}" section`).toBeGreaterThan(-1);
  const section = text.slice(start + 1).split(/\n## /)[0]!;
  const lines = section.split('\n').filter((l) => l.startsWith('|'));
  return lines.slice(2).map((l) =>
    l
      .slice(1, -1)
      .split(/(?<!\\)\|/)
      .map((c) => c.trim()),
  );
}

describe('docs', () => {
  it('README.md is a front door of at most 200 lines, and names where to go next', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(200);
    for (const doc of ['docs/guide.md', 'docs/integrations.md', 'docs/operating.md', 'docs/testing.md', 'ARCHITECTURE.md']) {
      expect(readme).toContain(`](${doc})`);
    }
  });

  it('README.md keeps the two commands: one starts the server on SQLite, one runs every test', () => {
    const readme = read('README.md');
    expect(readme).toContain('npm install -g pnpm@12.4.2 && pnpm install && pnpm start');
    expect(readme).toContain('npm install -g pnpm@12.4.2 && pnpm install && pnpm test');
    const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
    expect(Object.keys(scripts)).toEqual(expect.arrayContaining(['start', 'test', 'test:quick']));
  });

  it('no line of ARCHITECTURE.md is over 140 characters', () => {
    const long = read('ARCHITECTURE.md')
      .split('\n')
      .map((line, i) => ({ line: i + 1, length: [...line].length }))
      .filter((l) => l.length > 140);
    expect(long).toEqual([]);
  });

  it('each file:function of the "where each rule lives" table exists: the file, and the name declared in it', () => {
    const rows = tableRows(read('ARCHITECTURE.md'), 'Where each rule lives');
    expect(rows.length).toBeGreaterThanOrEqual(15);
    const missing: string[] = [];
    for (const row of rows) {
      const places = [...row[1]!.matchAll(/`([\w./-]+\.tsx?):(\w+)`/g)];
      expect(places.length, `a file:function in the row "${row[0]}"`).toBeGreaterThan(0);
      for (const [, file, name] of places) {
        const full = path.join(
          root,
          file!.replace(/^(core|schema|server)\//, (_, p: string) => `${shorthand[p]}/`),
        );
        if (!existsSync(full)) {
          missing.push(`${file} (no such file)`);
          continue;
        }
        const declared = new RegExp(
          `(?:function\\*?|const|let|class|interface|type)\\s+${name}\\b|^\\s+(?:async\\s+)?${name}\\s*[(<]`,
          'm',
        );
        if (!declared.test(readFileSync(full, 'utf8'))) missing.push(`${file}:${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('the glossary names each concept in every layer', () => {
    const rows = tableRows(read('ARCHITECTURE.md'), 'Glossary');
    expect(rows.length).toBeGreaterThanOrEqual(10);
    for (const row of rows) expect(row, `the glossary row "${row[0]}"`).toHaveLength(7);
  });

  it('relative links in the README and the docs reach a file, and a #anchor a heading of it', () => {
    const broken: string[] = [];
    for (const doc of docs) {
      const text = read(doc)
        .replace(/```[\s\S]*?```/g, '')
        .replace(/`[^`\n]*`(?!\]\()/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(target!)) continue;
        const [file, anchor] = target!.split('#') as [string, string | undefined];
        const resolved = file === '' ? doc : path.join(path.dirname(doc), file);
        if (!existsSync(path.join(root, resolved))) {
          broken.push(`${doc}: ${target} (no file)`);
          continue;
        }
        if (anchor !== undefined && resolved.endsWith('.md') && !anchorsOf(read(resolved)).has(anchor)) {
          broken.push(`${doc}: ${target} (no heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});
