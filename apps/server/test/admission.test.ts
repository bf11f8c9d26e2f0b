// Unit tests of admission under overload (http/admission.ts): first come first served, a bounded number started per
// turn of the event loop, and a request that waited too long answered 503 at once.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { OVERLOADED_MESSAGE, admission, overloadedResponse } from '../src/http/admission.ts';

/** A request whose work finishes when the test says so. */
function request() {
  let finish!: () => void;
  const finished = new Promise<void>((resolve) => (finish = resolve));
  let started = false;
  return {
    work: async () => {
      started = true;
      await finished;
      return new Response('ok');
    },
    finish,
    started: () => started,
  };
}

const refuse = () => new Response('shed', { status: 503 });

describe('admission', () => {
  it('works on at most `concurrency` requests at once and starts the waiting ones in arrival order', async () => {
    const gate = admission({ concurrency: 2, perTurn: 100, maxWaitMs: 10_000 });
    try {
      const requests = Array.from({ length: 5 }, request);
      const answers = requests.map((r) => gate.run(r.work, refuse));
      await nextTurn();
      expect(requests.map((r) => r.started())).toEqual([true, true, false, false, false]);
      requests[1]?.finish();
      await answers[1];
      await nextTurn();
      expect(requests.map((r) => r.started())).toEqual([true, true, true, false, false]);
      requests[0]?.finish();
      requests[2]?.finish();
      await Promise.all([answers[0], answers[2]]);
      await nextTurn();
      expect(requests.map((r) => r.started())).toEqual([true, true, true, true, true]);
      for (const r of requests) r.finish();
      expect(await Promise.all(answers.map(async (a) => (await a).status))).toEqual([200, 200, 200, 200, 200]);
    } finally {
      gate.stop();
    }
  });

  it('starts at most `perTurn` requests in one turn of the event loop; the rest start in the next turns', async () => {
    const gate = admission({ concurrency: 100, perTurn: 3, maxWaitMs: 10_000 });
    try {
      const requests = Array.from({ length: 7 }, request);
      const answers = requests.map((r) => gate.run(r.work, refuse));
      expect(requests.filter((r) => r.started())).toHaveLength(3);
      await nextTurn();
      expect(requests.filter((r) => r.started())).toHaveLength(6);
      await nextTurn();
      expect(requests.filter((r) => r.started())).toHaveLength(7);
      for (const r of requests) r.finish();
      await Promise.all(answers);
    } finally {
      gate.stop();
    }
  });

  it('answers a request that waited longer than maxWaitMs with the refusal, without starting it', async () => {
    const shedCounts: number[] = [];
    const gate = admission({ concurrency: 1, perTurn: 100, maxWaitMs: 50, onShed: (n) => shedCounts.push(n) });
    try {
      const busy = request();
      const first = gate.run(busy.work, refuse);
      const waiting = request();
      const answer = await gate.run(waiting.work, refuse);
      expect(answer.status).toBe(503);
      expect(await answer.text()).toBe('shed');
      expect(waiting.started()).toBe(false);
      await new Promise((resolve) => setTimeout(resolve, 150));
      expect(shedCounts).toEqual([1]);
      busy.finish();
      expect((await first).status).toBe(200);
    } finally {
      gate.stop();
    }
  });

  it('a request arriving behind a full line (maxQueue) is answered 503 at once; the line still drains', async () => {
    const gate = admission({ concurrency: 1, perTurn: 100, maxWaitMs: 10_000, maxQueue: 2 });
    try {
      const requests = Array.from({ length: 4 }, request);
      const answers = requests.map((r) => gate.run(r.work, refuse));
      // One at work, two in line, the fourth refused without waiting.
      expect((await answers[3])?.status).toBe(503);
      expect(requests[3]?.started()).toBe(false);
      for (const r of requests.slice(0, 3)) r.finish();
      expect((await Promise.all(answers.slice(0, 3))).map((a) => a.status)).toEqual([200, 200, 200]);
    } finally {
      gate.stop();
    }
  });

  it('a refused tRPC call gets tRPC’s error shape with the overloaded text, 503 and Retry-After', async () => {
    const answer = overloadedResponse('http://127.0.0.1:3000/trpc/todos.write');
    expect(answer.status).toBe(503);
    expect(answer.headers.get('retry-after')).toBe('1');
    expect(await answer.json()).toEqual({
      error: {
        message: OVERLOADED_MESSAGE,
        code: -32603,
        data: { code: 'SERVICE_UNAVAILABLE', httpStatus: 503, appCode: 'UNAVAILABLE', details: null },
      },
    });
    expect(await overloadedResponse('http://127.0.0.1:3000/runs/x').json()).toEqual({ error: OVERLOADED_MESSAGE });
  });
});
