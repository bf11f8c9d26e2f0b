// Runs a command as a child process that records what it loads: an ES module loader hook notes each module URL it
// imports, and at exit the CommonJS files it required and the built-in modules it loaded (Node's own list).
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export interface RecordedRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Every module file loaded, ES modules and required CommonJS files alike (file URLs, sorted, once each). */
  loaded: string[];
  /** The ES module files imported, in order (file URLs). */
  imported: string[];
  /** The built-in modules loaded (`node:https`'s is `https`). */
  builtins: string[];
}

/** Makes the preload once per test file; the returned function runs `node <bin> <args>` with `input` on stdin and
 * exactly `env` (plus PATH). */
export function moduleRecorder(name: string) {
  const scratch = mkdtempSync(path.join(os.tmpdir(), `agent-tasks-${name}-`));
  const preload = path.join(scratch, 'record-modules.cjs');
  writeFileSync(
    path.join(scratch, 'record-hooks.mjs'),
    "import { appendFileSync } from 'node:fs';\n" +
      'export async function load(url, context, next) {\n' +
      '  appendFileSync(process.env.MODULES_LOG, `${url}\\n`);\n' +
      '  return next(url, context);\n' +
      '}\n',
  );
  writeFileSync(
    preload,
    "const { appendFileSync, writeFileSync } = require('node:fs');\n" +
      "const { pathToFileURL } = require('node:url');\n" +
      `require('node:module').register(${JSON.stringify(pathToFileURL(path.join(scratch, 'record-hooks.mjs')).href)});\n` +
      "process.on('exit', () => {\n" +
      '  const required = Object.keys(require.cache).filter((file) => file !== __filename);\n' +
      "  writeFileSync(process.env.REQUIRED_LOG, required.map((file) => `${pathToFileURL(file).href}\\n`).join(''));\n" +
      "  writeFileSync(process.env.BUILTINS_LOG, process.moduleLoadList.join('\\n'));\n" +
      '});\n',
  );
  let runs = 0;
  return (bin: string, args: string[], input: string, env: Record<string, string>) => {
    const logs = { MODULES_LOG: '', REQUIRED_LOG: '', BUILTINS_LOG: '' };
    for (const key of Object.keys(logs) as (keyof typeof logs)[]) {
      logs[key] = path.join(scratch, `${key.toLowerCase()}-${++runs}.log`);
      writeFileSync(logs[key], '');
    }
    const child = spawn(process.execPath, ['-r', preload, bin, ...args], {
      env: { PATH: process.env.PATH, ...logs, ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end(input);
    const lines = (file: string) => readFileSync(file, 'utf8').split('\n');
    return new Promise<RecordedRun>((resolve, reject) => {
      child.once('error', reject);
      child.once('close', (code) => {
        const imported = lines(logs.MODULES_LOG).filter((url) => url.startsWith('file:'));
        const required = lines(logs.REQUIRED_LOG).filter((url) => url.startsWith('file:'));
        const builtins = lines(logs.BUILTINS_LOG)
          .filter((entry) => entry.startsWith('NativeModule '))
          .map((entry) => entry.slice('NativeModule '.length));
        resolve({ code, stdout, stderr, loaded: [...new Set([...imported, ...required])].sort(), imported, builtins });
      });
    });
  };
}
