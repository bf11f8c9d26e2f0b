// A worker's link to the writer, against a writer played by a Unix socket here: a mutation's answer comes back as the
// writer wrote it, its data parsed by no one (sent on as its text), a run's view answered by its source made here from
// the store, and a refusal as its error.
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { type Actor, type Deps, runs, sourceOfView } from '@agent-tasks/core';
import { initTRPC } from '@trpc/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { answerLine, type PrimaryLink, type ToWorker, resultOf } from '../src/cluster/messages.ts';
import { makeWorld, runTasks, startedRun } from '../../../packages/core/test/fixtures.ts';
import { writerLink } from '../src/cluster/writer-link.ts';
import type { WriterLink } from '../src/cluster/writer.ts';
import { knownJson } from '../src/known-json.ts';
import { createLogger } from '../src/logger.ts';

type Ctx = { deps?: Deps; writer?: WriterLink; actor?: Actor; request: { id: string } };
const t = initTRPC.context<Ctx>().create();
// An output step as the server's (`presented` outside the test suite's checks: the answer as it is).
const router = t.router({ step: t.procedure.output((value: unknown) => value).mutation(() => 'run here') });
const actor: Actor = { workspaceId: 'ws_1', keyId: 'key_1', role: 'agent', sessionId: null, agentName: null };

let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const done of cleanup) done();
  cleanup = [];
});

/** A writer on a Unix socket answering each call with `answer(call)`'s line; and a primary that says where it is. */
async function writerAt(answer: (call: number) => string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'writer-link-'));
  const address = path.join(dir, 'writer.sock');
  const server = net.createServer((socket) => {
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n')) {
        // Read without JSON.parse (the test counts the parses made on the worker's side).
        const call = /^\{"call":(\d+),/.exec(text.slice(0, end))?.[1];
        text = text.slice(end + 1);
        if (call !== undefined) socket.write(`${answer(Number(call))}\n`);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(address, resolve));
  cleanup.push(() => {
    server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const handlers: ((message: ToWorker) => void)[] = [];
  const link: PrimaryLink = {
    id: 2,
    send(message) {
      if (message.at === 'write:where')
        queueMicrotask(() => {
          for (const handler of handlers) handler({ at: 'write:writer', writer: { address, secret: 's' } });
        });
    },
    onMessage: (handler) => handlers.push(handler),
  };
  return writerLink(link, router, { holdMs: 5_000, log: createLogger({ level: 'silent', format: 'json' }), forget: () => {} });
}

describe("the writer's answer through the link", () => {
  it('is the data as the writer wrote it, parsed by no one on the way', async () => {
    const view = { id: 'run_1', tasks: Array.from({ length: 100 }, (_, i) => ({ action: `Task ${i}`, expected_result: 'done' })) };
    const link = await writerAt((call) => answerLine({ call, ok: true, data: view }));
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const { data } = (await link.call('step', { runId: 'run_1' }, actor, 'req_1')) as { data: unknown };
      expect(knownJson(data as object)).toBe(JSON.stringify(view));
      // Only the answer line's head: neither the link nor the promise that carried it read the data.
      expect(parse.mock.calls.map(([text]) => String(text))).toEqual([expect.stringMatching(/^\{"call":\d+,"ok":true\}$/)]);
    } finally {
      parse.mockRestore();
    }
  });

  it("is the data as the writer wrote it after tRPC's own steps too: its output step awaits it, and reads no key", async () => {
    const view = { id: 'run_1', tasks: Array.from({ length: 100 }, (_, i) => ({ action: `Task ${i}`, expected_result: 'done' })) };
    const writer = await writerAt((call) => answerLine({ call, ok: true, data: view }));
    const caller = router.createCaller({ writer, actor, request: { id: 'req_3' } });
    const parse = vi.spyOn(JSON, 'parse');
    try {
      const data = await caller.step();
      expect(knownJson(data as object)).toBe(JSON.stringify(view));
      expect(parse.mock.calls.map(([text]) => String(text))).toEqual([expect.stringMatching(/^\{"call":\d+,"ok":true\}$/)]);
    } finally {
      parse.mockRestore();
    }
  });

  it('is awaited as the value it is when its data has a `then` of its own', async () => {
    const writer = await writerAt((call) => answerLine({ call, ok: true, data: { then: 'a field', id: 'x' } }));
    const data = (await router.createCaller({ writer, actor, request: { id: 'req_4' } }).step()) as { then?: unknown };
    expect(data.then).toBe('a field');
    expect(JSON.parse(JSON.stringify(data))).toEqual({ then: 'a field', id: 'x' });
  });

  it("is a run's view made from this worker's store when the writer answered with its source, not its text", async () => {
    const w = await makeWorld();
    const run = await startedRun(w, { tasks: runTasks(40) });
    const view = await runs.step(w.deps, w.session, {
      runId: run.id,
      task: 1,
      attemptId: run.attemptId ?? '',
      evidence: 'Checked task 1',
      progress_execution_outcome: 'Task 1 verified',
    });
    const answer = resultOf(view);
    expect(answer).toEqual({ ok: true, view: sourceOfView(view) });
    const lines: string[] = [];
    const writer = await writerAt((call) => {
      lines.push(answerLine({ call, ...answer }));
      return lines.at(-1) as string;
    });
    // The run moves on before the worker reads it: the answer is still the step's.
    w.clock.advance(5_000);
    await runs.step(w.deps, w.session, {
      runId: run.id,
      task: 2,
      attemptId: view.attemptId ?? '',
      evidence: 'Checked task 2',
      progress_execution_outcome: 'Task 2 verified',
    });
    const data = await router.createCaller({ deps: w.deps, writer, actor: w.session, request: { id: 'req_5' } }).step();
    expect(JSON.stringify(data)).toBe(JSON.stringify(view));
    expect(lines).toHaveLength(1);
    expect(lines[0]?.length).toBeLessThan(200);
    expect(JSON.stringify(view).length).toBeGreaterThan(5_000);
  });

  it('is a fault when the source names a version the store here does not have', async () => {
    const w = await makeWorld();
    const run = await startedRun(w);
    const source = { workspaceId: w.workspaceId, runId: run.id, version: 99, at: 0 };
    const writer = await writerAt((call) => answerLine({ call, ok: true, view: source }));
    await expect(router.createCaller({ deps: w.deps, writer, actor: w.session, request: { id: 'req_6' } }).step()).rejects.toThrow(
      `run ${run.id} at version 99, just written by the writer, cannot be read here`,
    );
  });

  it("is a refusal's error when the writer refused", async () => {
    const link = await writerAt((call) =>
      answerLine({ call, ok: false, failure: { kind: 'domain', code: 'NOT_FOUND', message: 'Error: run not found: run_9.' } }),
    );
    await expect(link.call('step', { runId: 'run_9' }, actor, 'req_2')).rejects.toThrow('Error: run not found: run_9.');
  });
});
