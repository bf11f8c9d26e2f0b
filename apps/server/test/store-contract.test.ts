// One contract for the domain's Store port, run against core's in-memory fake and the Prisma store on SQLite and on
// PostgreSQL: the same transactions, constraints, orderings and compare-and-sets, comments and full-text search, so the
// fake the core tests use is faithful.
import type { TaskStatus } from '@agent-tasks/schema';
import type { Repositories, RunRecord, Store, TaskChangeRecord, TaskCommentRecord, TaskRecord } from '@agent-tasks/core';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  T0,
  at,
  channelRecord as channel,
  taskChangeRecord as change,
  taskEdge as edge,
  taskListRecord as listRec,
  outboxRecord as message,
  intakeRunRecord as run,
  sessionRecord as ses,
  startRecord as start,
  stepRecord as stepRow,
  taskRecord as taskRec,
  workspaceRecord as ws,
} from '../../../packages/core/test/record-builders.ts';
import { type StoreUnderTest, memoryKind, postgresKind, prismaKind } from './support/stores.ts';

/** The inner loop (`pnpm test:quick`) starts no PostgreSQL; every other run holds the PostgreSQL store to the contract too. */
const kinds = process.env.AGENT_TASKS_TEST_SUITE === 'quick' ? [memoryKind, prismaKind()] : [memoryKind, prismaKind(), postgresKind()];

describe.each(kinds)('$name', (kind) => {
  let under: StoreUnderTest;
  let store: Store;
  const tx = <T>(work: (repos: Repositories) => Promise<T>) => store.transaction(work);
  const refuses = (write: Promise<unknown>, memoryText: string) => under.refuses(write, memoryText);

  beforeAll(() => kind.setup());
  afterAll(() => kind.teardown());
  beforeEach(async () => {
    under = await kind.open();
    store = under.store;
  });
  afterEach(() => under.close());

  /** A todo update of ses_1 drafted for `revision` (its turn comes from the session). */
  const draft = (revision: number) => ({
    id: `tdu_${revision}`,
    sessionId: 'ses_1',
    revision,
    items: [],
    changes: { added: [], removed: [], statusChanged: [] },
    counts: { pending: 0, inProgress: 0, completed: 0 },
    createdAt: T0,
  });

  /** Two workspaces and a session in the first. */
  const seeded = () =>
    tx(async (repos) => {
      await repos.workspaces.create(ws('ws_1'));
      await repos.workspaces.create(ws('ws_2'));
      await repos.sessions.create(ses('ses_1'));
      await repos.sessions.create(ses('ses_2'));
    });

  describe('transactions', () => {
    it('commits the writes of work that resolves, and returns its result', async () => {
      const result = await tx(async (repos) => {
        await repos.workspaces.create(ws('ws_1'));
        await repos.sessions.create(ses('ses_1'));
        return 'done';
      });
      expect(result).toBe('done');
      expect(await store.workspaces.count()).toBe(1);
      expect(await store.sessions.get('ws_1', 'ses_1')).toMatchObject({ id: 'ses_1' });
    });

    it('leaves nothing changed when work throws, and rethrows', async () => {
      await tx((repos) => repos.workspaces.create(ws('ws_1')));
      const before = await under.snapshot();
      await expect(
        tx(async (repos) => {
          await repos.workspaces.update('ws_1', { oneActiveRule: false });
          await repos.sessions.create(ses('ses_1'));
          await repos.workspaces.create(ws('ws_2'));
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect(await under.snapshot()).toEqual(before);
      expect((await store.workspaces.get('ws_1'))!.oneActiveRule).toBe(true);
      expect(await store.workspaces.count()).toBe(1);
      expect(await store.sessions.get('ws_1', 'ses_1')).toBeNull();
    });

    it('work sees its own writes; the outside sees them only after commit', async () => {
      await tx(async (repos) => {
        await repos.workspaces.create(ws('ws_1'));
        expect(await repos.workspaces.count()).toBe(1);
        expect(await store.workspaces.count()).toBe(0);
      });
      expect(await store.workspaces.count()).toBe(1);
    });

    it('runs transactions one at a time, so a compare-and-set sees the previous commit', async () => {
      await tx(async (repos) => {
        await repos.workspaces.create(ws('ws_1'));
        await repos.sessions.create(ses('ses_1'));
      });
      const bump = () =>
        tx(async (repos) => {
          const s = await repos.sessions.get('ws_1', 'ses_1');
          for (let i = 0; i < 10; i++) await Promise.resolve(); // let rival work interleave if it could
          return (await repos.todos.advance('ws_1', s!.todoRevision, draft(s!.todoRevision + 1))) !== null;
        });
      expect(await Promise.all([bump(), bump(), bump()])).toEqual([true, true, true]);
      expect((await store.sessions.get('ws_1', 'ses_1'))!.todoRevision).toBe(3);
    });

    it('a failed transaction does not block the next', async () => {
      const failed = tx(async () => {
        throw new Error('x');
      });
      const next = tx((repos) => repos.workspaces.create(ws('ws_1')));
      await expect(failed).rejects.toThrow('x');
      await next;
      expect(await store.workspaces.count()).toBe(1);
    });

    it('returns copies: mutating a read record does not change the store', async () => {
      await tx((repos) => repos.workspaces.create(ws('ws_1')));
      const read = (await store.workspaces.get('ws_1'))!;
      read.oneActiveRule = false;
      expect((await store.workspaces.get('ws_1'))!.oneActiveRule).toBe(true);
    });

    it('enforces the constraints: unique ids and token hashes, existing workspaces, one todo update per revision', async () => {
      await tx((repos) => repos.workspaces.create(ws('ws_1')));
      await refuses(
        tx((repos) => repos.workspaces.create(ws('ws_1'))),
        'already exists',
      );
      await refuses(
        tx((repos) => repos.sessions.create(ses('ses_1', 'ws_404'))),
        'missing workspace',
      );
      await tx((repos) => repos.sessions.create(ses('ses_1')));
      await refuses(
        tx((repos) => repos.sessions.create({ ...ses('ses_2'), tokenHash: 'h:ses_1' })),
        'tokenHash must be unique',
      );
      const update = {
        id: 'tdu_1',
        sessionId: 'ses_1',
        revision: 1,
        turnNumber: 0,
        items: [],
        changes: { added: [], removed: [], statusChanged: [] },
        counts: { pending: 0, inProgress: 0, completed: 0 },
        createdAt: T0,
      };
      await tx((repos) => repos.todos.insert(update));
      await refuses(
        tx((repos) => repos.todos.insert({ ...update, id: 'tdu_2' })),
        'already exists',
      );
      expect(await store.workspaces.count()).toBe(1);
    });

    it('scopes get by workspace', async () => {
      await tx(async (repos) => {
        await repos.workspaces.create(ws('ws_1'));
        await repos.sessions.create(ses('ses_1'));
      });
      expect(await store.sessions.get('ws_2', 'ses_1')).toBeNull();
    });

    it('a failed transaction leaves no channel, start, run, step or message behind', async () => {
      await seeded();
      await tx(async (repos) => {
        await repos.runs.create(run('run_1'));
        await repos.runs.createStart(start('start_1'));
      });
      const before = await under.snapshot();
      await expect(
        tx(async (repos) => {
          await repos.channels.create(channel('ch_1'));
          await repos.runs.createStart(start('start_2'));
          expect(await repos.runs.markStartExecuted('start_1', 'run_1')).toBe(true);
          expect(await repos.runs.save({ ...run('run_1'), status: 'running', version: 2 }, 1, stepRow('run_1', 1))).toBe(true);
          await repos.outbox.enqueue(message('msg_1'));
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect(await under.snapshot()).toEqual(before);
      expect(await store.runs.get('ws_1', 'run_1')).toMatchObject({ status: 'intake', version: 1 });
      expect(await store.runs.getStart('ws_1', 'start_1')).toMatchObject({ runId: null });
      expect(await store.outbox.forRun('run_1')).toEqual([]);
      expect(await store.channels.list('ws_1')).toEqual([]);
    });
  });

  describe('todo lists', () => {
    const items = [{ content: 'Ship', status: 'in_progress' as const, activeForm: 'Shipping' }];
    const revisions = async () => (await store.todos.page('ses_1', null, 10)).map((u) => u.revision);

    it("advance: records the draft at the revision it was drafted for, with the session's turn, in one step", async () => {
      await seeded();
      await tx((repos) => repos.sessions.setTurn('ses_1', 4, 'running'));
      const moved = await tx((repos) => repos.todos.advance('ws_1', 0, { ...draft(1), items }));
      expect(moved).toEqual({ todoRevision: 1, turnNumber: 4, recorded: true });
      expect(await store.todos.latest('ses_1')).toEqual({ ...draft(1), items, turnNumber: 4 });
      expect(await store.todos.latestKnown('ses_1')).toEqual({ ...draft(1), items, turnNumber: 4 });
      expect((await store.sessions.get('ws_1', 'ses_1'))!.todoRevision).toBe(1);
    });

    it('advance: a draft for another revision moves the revision and records nothing; the caller records at it', async () => {
      await seeded();
      const moved = await tx(async (repos) => {
        const answer = await repos.todos.advance('ws_1', undefined, draft(5));
        await repos.todos.insert({ ...draft(answer!.todoRevision), id: 'tdu_own', turnNumber: answer!.turnNumber });
        return answer;
      });
      expect(moved).toEqual({ todoRevision: 1, turnNumber: 0, recorded: false });
      expect(await revisions()).toEqual([1]);
      expect((await store.todos.latest('ses_1'))!.id).toBe('tdu_own');
    });

    it('advance: a stale revision, another workspace or a base past the column refuses with null and changes nothing', async () => {
      await seeded();
      await tx((repos) => repos.todos.advance('ws_1', 0, draft(1)));
      const before = await under.snapshot();
      for (const [workspace, expected] of [
        ['ws_1', 0],
        ['ws_2', 1],
        ['ws_2', undefined],
        ['ws_1', 2 ** 31],
        ['ws_1', 2 ** 31 - 1],
      ] as const) {
        expect(await tx((repos) => repos.todos.advance(workspace, expected, draft((expected ?? 1) + 1)))).toBeNull();
      }
      expect(await under.snapshot()).toEqual(before);
      expect(await revisions()).toEqual([1]);
      // A write drafts against the card at its base first: none is there past the column either.
      expect(await store.todos.at('ses_1', 2 ** 31)).toBeNull();
      expect(await tx((repos) => repos.todos.at('ses_1', 2 ** 31))).toBeNull();
    });

    it('latestKnown: a write sees the card a write before it in the same batch recorded, never one undone', async () => {
      await seeded();
      await tx((repos) => repos.todos.advance('ws_1', 0, draft(1)));
      // Queued together, so they share one transaction where the store batches writes: the second records and is then
      // refused (undone: its savepoint, or the batch run again without it), and the third asks what is known.
      const [kept, undone, known] = await Promise.allSettled([
        tx((repos) => repos.todos.advance('ws_1', undefined, { ...draft(2), items })),
        tx(async (repos) => {
          await repos.todos.advance('ws_1', undefined, { ...draft(3), id: 'tdu_undone' });
          throw new Error('refused after recording');
        }),
        tx(async (repos) => [await repos.todos.latestKnown('ses_1'), await repos.todos.at('ses_1', 2)]),
      ]);
      expect(kept).toEqual({ status: 'fulfilled', value: { todoRevision: 2, turnNumber: 0, recorded: true } });
      expect(undone).toMatchObject({ status: 'rejected', reason: { message: 'refused after recording' } });
      const card = { ...draft(2), items, turnNumber: 0 };
      expect(known).toEqual({ status: 'fulfilled', value: [card, card] });
      expect(await revisions()).toEqual([2, 1]);
      expect(await store.todos.latestKnown('ses_1')).toEqual(card);
    });

    it('advance: the same revision drafted twice is recorded once; the second writer gets the next revision', async () => {
      await seeded();
      const both = await Promise.all([
        tx((repos) => repos.todos.advance('ws_1', undefined, { ...draft(1), id: 'tdu_a' })),
        tx((repos) => repos.todos.advance('ws_1', undefined, { ...draft(1), id: 'tdu_b' })),
      ]);
      expect(both.map((m) => [m!.todoRevision, m!.recorded])).toEqual([
        [1, true],
        [2, false],
      ]);
      expect(await revisions()).toEqual([1]);
    });
  });

  describe('channels', () => {
    beforeEach(seeded);

    it('lists a workspace by creation (then id), and deletes only within the workspace', async () => {
      await tx(async (repos) => {
        await repos.channels.create(channel('ch_b', 'ws_1', at(0)));
        await repos.channels.create(channel('ch_a', 'ws_1', at(0)));
        await repos.channels.create(channel('ch_0', 'ws_1', at(-1)));
        await repos.channels.create(channel('ch_x', 'ws_2'));
      });
      expect((await store.channels.list('ws_1')).map((c) => c.id)).toEqual(['ch_0', 'ch_a', 'ch_b']);
      expect(await store.channels.delete('ws_2', 'ch_a')).toBe(false);
      expect(await store.channels.delete('ws_1', 'ch_a')).toBe(true);
      expect(await store.channels.delete('ws_1', 'ch_a')).toBe(false);
      expect((await store.channels.list('ws_1')).map((c) => c.id)).toEqual(['ch_0', 'ch_b']);
    });

    it('refuses a repeated id and a missing workspace', async () => {
      await store.channels.create(channel('ch_1'));
      await refuses(store.channels.create(channel('ch_1')), 'already exists');
      await refuses(store.channels.create(channel('ch_2', 'ws_nope')), 'missing workspace');
      expect((await store.channels.list('ws_1')).map((c) => c.id)).toEqual(['ch_1']);
    });
  });

  describe('runs', () => {
    beforeEach(seeded);

    it('binds a start attempt to its run once', async () => {
      await store.runs.createStart(start('start_1'));
      expect(await store.runs.getStart('ws_2', 'start_1')).toBeNull();
      expect(await store.runs.markStartExecuted('start_1', 'run_1')).toBe(true);
      expect(await store.runs.markStartExecuted('start_1', 'run_2')).toBe(false);
      expect(await store.runs.markStartExecuted('start_nope', 'run_2')).toBe(false);
      expect((await store.runs.getStart('ws_1', 'start_1'))?.runId).toBe('run_1');
    });

    it('a run is read within its workspace, or anywhere by its id', async () => {
      await store.runs.create(run('run_1'));
      expect(await store.runs.get('ws_2', 'run_1')).toBeNull();
      expect((await store.runs.get('ws_1', 'run_1'))?.id).toBe('run_1');
      expect((await store.runs.getAnywhere('run_1'))?.id).toBe('run_1');
      expect(await store.runs.getAnywhere('run_2')).toBeNull();
    });

    it("versionOf: the run's version within its workspace, moved by each save; null for another workspace or no run", async () => {
      await store.runs.create(run('run_1'));
      expect(await store.runs.versionOf('ws_1', 'run_1')).toBe(1);
      expect(await store.runs.versionOf('ws_2', 'run_1')).toBeNull();
      expect(await store.runs.versionOf('ws_1', 'run_nope')).toBeNull();
      expect(await store.runs.save(run('run_1', { status: 'running', version: 2 }), 1, stepRow('run_1', 1))).toBe(true);
      expect(await store.runs.versionOf('ws_1', 'run_1')).toBe(2);
    });

    it('refuses a repeated id, a start attempt used twice and a missing workspace', async () => {
      await store.runs.create(run('run_1'));
      await refuses(store.runs.create(run('run_1')), 'already exists');
      await refuses(store.runs.create(run('run_2', { startAttemptId: 'start_of_run_1' })), 'must be unique');
      await refuses(store.runs.create(run('run_3', { workspaceId: 'ws_nope' })), 'missing workspace');
      expect((await store.runs.list('ws_1', { limit: 10 })).map((r) => r.id)).toEqual(['run_1']);
    });

    it('writes a run only from the version it was read at, never its keys or creation facts; a refused save records no step', async () => {
      await store.runs.create(run('run_1'));
      const changed = run('run_1', { status: 'running', cursor: 1, version: 2, workspaceId: 'ws_2', sessionId: 'ses_x', createdAt: at(5) });
      expect(await store.runs.save(changed, 2, stepRow('run_1', 2))).toBe(false);
      expect(await store.runs.steps('run_1')).toEqual([]);
      expect(await store.runs.save(changed, 1, stepRow('run_1', 1))).toBe(true);
      expect(await store.runs.get('ws_1', 'run_1')).toMatchObject({
        status: 'running',
        cursor: 1,
        version: 2,
        sessionId: 'ses_1',
        createdAt: T0,
      });
      expect(await store.runs.save(changed, 1, stepRow('run_1', 3))).toBe(false);
      expect(await store.runs.save(run('run_nope'), 1, stepRow('run_nope', 1))).toBe(false);
      expect((await store.runs.steps('run_1')).map((s) => s.seq)).toEqual([1]);
    });

    it('rebuilds the run at any version since prior fields were kept, from the current run and the steps since', async () => {
      await store.runs.create(run('run_1', { tasks: [{ action: 'A', expected_result: 'B' }], taskOutcomes: ['Pending'], taskTimes: [0] }));
      const versions = [(await store.runs.get('ws_1', 'run_1'))!];
      const changes: ((r: RunRecord) => void)[] = [
        (r) => Object.assign(r, { status: 'running', cursor: 1, currentSince: at(2), attemptId: 'att_2', notice: 'Reordered' }),
        (r) => {
          r.taskOutcomes[0] = 'Verified';
          r.taskTimes[0] = 1500;
          Object.assign(r, { cursor: 2, currentSince: null, notice: null, revising: true, executionOutcome: 'Half way' });
        },
        (r) => {
          r.tasks = [...r.tasks, { action: 'C', expected_result: 'D' }];
          r.connections = [{ runId: 'run_child', name: null, at: at(7) }];
          r.personNotes = [{ task: 2, text: 'Mind the cache', author: 'ada', at: at(8).toISOString() }];
          Object.assign(r, { revising: false, revision: 1, blocker: 'Waiting on CI', name: 'Renamed' });
        },
      ];
      for (const [i, change] of changes.entries()) {
        const current = (await store.runs.get('ws_1', 'run_1'))!;
        change(current);
        const from = current.version;
        current.version = from + 1;
        current.updatedAt = at(10 + i);
        expect(await store.runs.save(current, from, stepRow('run_1', from, `att_${from}`))).toBe(true);
        versions.push((await store.runs.get('ws_1', 'run_1'))!);
      }
      expect(versions.map((v) => v.version)).toEqual([1, 2, 3, 4]);
      for (const version of versions) expect(await store.runs.atVersion('ws_1', 'run_1', version.version)).toEqual(version);
      expect(await store.runs.atVersion('ws_1', 'run_1', 5)).toBeNull();
      expect(await store.runs.atVersion('ws_2', 'run_1', 2)).toBeNull();
      expect(await store.runs.atVersion('ws_1', 'run_nope', 1)).toBeNull();
    });

    it('lists a workspace newest first, by session, up to the limit', async () => {
      await store.runs.create(run('run_1', { createdAt: at(1) }));
      await store.runs.create(run('run_2', { createdAt: at(2), sessionId: 'ses_2' }));
      await store.runs.create(run('run_3', { createdAt: at(3) }));
      await store.runs.create(run('run_4', { createdAt: at(4), workspaceId: 'ws_2' }));
      expect((await store.runs.list('ws_1', { limit: 10 })).map((r) => r.id)).toEqual(['run_3', 'run_2', 'run_1']);
      expect((await store.runs.list('ws_1', { sessionId: 'ses_1', limit: 10 })).map((r) => r.id)).toEqual(['run_3', 'run_1']);
      expect((await store.runs.list('ws_1', { limit: 1 })).map((r) => r.id)).toEqual(['run_3']);
    });

    it('steps: one per (run, seq), one per (run, attempt); steps without an attempt never collide', async () => {
      await store.runs.create(run('run_1'));
      const saveAt = (from: number, attemptId: string | null, seq = from) =>
        tx(async (repos) => repos.runs.save(run('run_1', { version: from + 1 }), from, stepRow('run_1', seq, attemptId)));
      expect(await saveAt(1, 'a')).toBe(true);
      expect(await saveAt(2, null)).toBe(true);
      expect(await saveAt(3, null)).toBe(true);
      await refuses(saveAt(4, null, 3), 'already exists');
      await refuses(saveAt(4, 'a'), 'already exists');
      expect((await store.runs.get('ws_1', 'run_1'))?.version).toBe(4);
      expect((await store.runs.steps('run_1')).map((s) => s.seq)).toEqual([1, 2, 3]);
      expect((await store.runs.findStepByAttempt('run_1', 'a'))?.seq).toBe(1);
      expect(await store.runs.findStepByAttempt('run_1', 'b')).toBeNull();
    });

    it('what a read returns is its own: changing it changes nothing stored (its checklist is replaced whole)', async () => {
      await store.runs.create(run('run_1', { tasks: [{ action: 'A', expected_result: 'B' }], taskOutcomes: ['Pending'] }));
      const read = (await store.runs.get('ws_1', 'run_1'))!;
      read.taskOutcomes[0] = 'changed';
      read.tasks = [{ action: 'changed', expected_result: 'B' }];
      read.version = 99;
      expect(await store.runs.get('ws_1', 'run_1')).toMatchObject({
        version: 1,
        tasks: [{ action: 'A', expected_result: 'B' }],
        taskOutcomes: ['Pending'],
      });
    });

    it("a read's checklist cannot be changed in place: a store may share it between reads", async () => {
      await store.runs.create(run('run_1', { tasks: [{ action: 'A', expected_result: 'B' }] }));
      const read = (await store.runs.get('ws_1', 'run_1'))!;
      expect(() => {
        (read.tasks as unknown as { action: string }[])[0]!.action = 'changed';
      }).toThrow(TypeError);
      expect(() => (read.tasks as unknown[]).push({ action: 'C', expected_result: 'D' })).toThrow(TypeError);
      expect(await store.runs.get('ws_1', 'run_1')).toMatchObject({ tasks: [{ action: 'A', expected_result: 'B' }] });
    });
  });

  describe('outbox', () => {
    beforeEach(seeded);

    // A store whose `due` claims (PostgreSQL, shared by replicas) answers the first message of each channel, leased: its
    // orderings are tests/replicas.test.ts's; the single-server ones below are the fake's and SQLite's.
    const singleServerDue = kind.claimsDue ? () => undefined : it;

    singleServerDue('due: undelivered messages whose time has come, by next attempt then id, up to the limit', async () => {
      await store.outbox.enqueue(message('msg_b', { nextAttemptAt: at(0) }));
      await store.outbox.enqueue(message('msg_a', { nextAttemptAt: at(0) }));
      await store.outbox.enqueue(message('msg_0', { nextAttemptAt: at(-5) }));
      await store.outbox.enqueue(message('msg_later', { nextAttemptAt: at(10) }));
      await store.outbox.enqueue(message('msg_done', { nextAttemptAt: at(-9), deliveredAt: at(-8) }));
      expect((await store.outbox.due(at(0), 10)).map((m) => m.id)).toEqual(['msg_0', 'msg_a', 'msg_b']);
      expect((await store.outbox.due(at(0), 2)).map((m) => m.id)).toEqual(['msg_0', 'msg_a']);
      expect((await store.outbox.due(at(10), 10)).map((m) => m.id)).toEqual(['msg_0', 'msg_a', 'msg_b', 'msg_later']);
    });

    singleServerDue('due: none of the channels skipped, none of a workspace already running its share of the lanes', async () => {
      await store.outbox.enqueue(message('msg_1', { channelId: 'ch_1', nextAttemptAt: at(-3) }));
      await store.outbox.enqueue(message('msg_2', { channelId: 'ch_2', nextAttemptAt: at(-2) }));
      await store.outbox.enqueue(message('msg_3', { workspaceId: 'ws_2', channelId: 'ch_3', nextAttemptAt: at(-1) }));
      expect((await store.outbox.due(at(0), 10, { channels: ['ch_1'] })).map((m) => m.id)).toEqual(['msg_2', 'msg_3']);
      const share = (n: number) => ({ perWorkspace: 2, running: new Map([['ws_1', n]]) });
      expect((await store.outbox.due(at(0), 10, { share: share(1) })).map((m) => m.id)).toEqual(['msg_1', 'msg_2', 'msg_3']);
      expect((await store.outbox.due(at(0), 10, { channels: ['ch_1'], share: share(2) })).map((m) => m.id)).toEqual(['msg_3']);
    });

    it('refuses a repeated id or idempotency key', async () => {
      await store.outbox.enqueue(message('msg_1'));
      await refuses(store.outbox.enqueue(message('msg_1', { idempotencyKey: 'other' })), 'already exists');
      await refuses(store.outbox.enqueue(message('msg_2', { idempotencyKey: 'key_msg_1' })), 'must be unique');
      expect((await store.outbox.forRun('run_1')).map((m) => m.id)).toEqual(['msg_1']);
    });

    it('a failure records its attempts, next time and error (first 500 characters); delivery counts the try and clears the error', async () => {
      await store.outbox.enqueue(message('msg_1'));
      await store.outbox.markFailed('msg_1', 1, at(1000), 'x'.repeat(600));
      expect((await store.outbox.forRun('run_1'))[0]).toMatchObject({
        attempts: 1,
        nextAttemptAt: at(1000),
        lastError: 'x'.repeat(500),
        deliveredAt: null,
      });
      await store.outbox.markDelivered('msg_1', at(1500), 2);
      expect((await store.outbox.forRun('run_1'))[0]).toMatchObject({ attempts: 2, lastError: null, deliveredAt: at(1500) });
      await refuses(store.outbox.markDelivered('msg_nope', at(0), 1), 'does not exist');
      await refuses(store.outbox.markFailed('msg_nope', 1, at(0), 'e'), 'does not exist');
    });

    it('release makes a claimed, undelivered message due at the given time; a delivered one is left alone', async () => {
      await store.outbox.enqueue(message('msg_1', { nextAttemptAt: at(60_000) }));
      await store.outbox.enqueue(message('msg_2', { nextAttemptAt: at(-9), deliveredAt: at(-8), channelId: 'ch_2' }));
      expect(await store.outbox.due(at(0), 10)).toEqual([]);
      await store.outbox.release('msg_1', at(0));
      await store.outbox.release('msg_2', at(0));
      expect((await store.outbox.due(at(0), 10)).map((m) => m.id)).toEqual(['msg_1']);
      expect((await store.outbox.forRun('run_1')).find((m) => m.id === 'msg_2')).toMatchObject({ nextAttemptAt: at(-9) });
    });

    it("dropPending removes only the channel's undelivered messages; forRun lists by creation", async () => {
      await store.outbox.enqueue(message('msg_2', { createdAt: at(2) }));
      await store.outbox.enqueue(message('msg_1', { createdAt: at(1), deliveredAt: at(1) }));
      await store.outbox.enqueue(message('msg_3', { createdAt: at(3), channelId: 'ch_2' }));
      await store.outbox.enqueue(message('msg_4', { createdAt: at(4), runId: 'run_2' }));
      expect((await store.outbox.forRun('run_1')).map((m) => m.id)).toEqual(['msg_1', 'msg_2', 'msg_3']);
      await store.outbox.dropPending('ch_1');
      expect((await store.outbox.forRun('run_1')).map((m) => m.id)).toEqual(['msg_1', 'msg_3']);
      expect(await store.outbox.forRun('run_2')).toEqual([]);
    });
  });

  describe('tasks', () => {
    beforeEach(() =>
      tx(async (repos) => {
        await repos.workspaces.create(ws('ws_1'));
        await repos.tasks.createList(listRec('tl_1', 'default'));
      }),
    );

    /** Inserts tasks T-1… with the given statuses (and owners), in seq order. */
    const seed = (...rows: [TaskStatus, (string | null)?][]) =>
      tx(async (repos) => {
        for (const [i, [status, owner]] of rows.entries())
          await repos.tasks.insert(taskRec(`T-${i + 1}`, i + 1, { status, owner: owner ?? null }));
      });
    const ids = (rows: { id: string }[]) => rows.map((t) => t.id);
    /** A write that only tells the store which tasks' readiness may have changed. */
    const readiness = (r: Repositories, listId: string, tasks: string[]) =>
      r.tasks.commit(listId, { tasks: [], changes: [], readiness: tasks });
    /** A write of change records alone (the store numbers them). */
    const changesOnly = (r: Repositories, listId: string, ...taskIds: string[]) =>
      r.tasks.commit(listId, { tasks: [], changes: taskIds.map((id) => withoutSeq(change(0, id, listId))), readiness: [] });
    const withoutSeq = ({ seq, ...rest }: TaskChangeRecord) => rest;
    /**
     * Writes a task at `status` from the version it was read at (a compare-and-set), with its change record as core's
     * writes have (one statement on PostgreSQL, with the readiness refreshed after it).
     */
    const setStatus = async (r: Repositories, listId: string, id: string, status: TaskStatus, alsoReady: string[] = []) => {
      const t = (await r.tasks.get(listId, id))!;
      return r.tasks.commit(listId, {
        tasks: [{ task: { ...t, status, version: t.version + 1 }, fromVersion: t.version }],
        changes: [withoutSeq(change(0, id, listId))],
        readiness: alsoReady,
      });
    };

    describe('lists and counters', () => {
      it('finds a list by workspace and name only; names are unique per workspace', async () => {
        expect(await store.tasks.findList('ws_1', 'default')).toEqual(listRec('tl_1', 'default'));
        expect(await tx((r) => r.tasks.findList('ws_1', 'default', { hold: true }))).toEqual(listRec('tl_1', 'default'));
        expect(await store.tasks.findList('ws_2', 'default')).toBeNull();
        expect(await store.tasks.findList('ws_1', 'other')).toBeNull();
        await refuses(
          tx((r) => r.tasks.createList(listRec('tl_2', 'default'))),
          'task list (ws_1, default) already exists',
        );
        await refuses(
          tx((r) => r.tasks.createList(listRec('tl_1', 'x'))),
          'task list id tl_1 already exists',
        );
        await refuses(
          tx((r) => r.tasks.createList(listRec('tl_3', 'default', 'ws_404'))),
          'task list references missing workspace ws_404',
        );
      });

      it('numbers new tasks and changes per list, separately, from 1; a task may bring its number, and the counter can be raised', async () => {
        await tx((r) => r.tasks.createList(listRec('tl_2')));
        const numbers = await tx(async (r) => {
          const first = await r.tasks.insert({ ...taskRec('T-1', 0), seq: undefined });
          const second = await r.tasks.insert({ ...taskRec('T-2', 0), seq: undefined });
          const feed = (await changesOnly(r, 'tl_1', 'T-1'))!.map((c) => c.seq);
          const other = await r.tasks.insert({ ...taskRec('T-1', 0, { listId: 'tl_2' }), seq: undefined });
          const kept = await r.tasks.insert(taskRec('T-9', 9));
          return [first, second, ...feed, other, kept];
        });
        expect(numbers).toEqual([1, 2, 1, 1, 9]);
        expect(await store.tasks.taskSeqOf('tl_1')).toBe(2);
        expect(await store.tasks.feedPosition('tl_1')).toBe(1);
        await tx((r) => r.tasks.raiseTaskSeq('tl_1', 9));
        await tx((r) => r.tasks.raiseTaskSeq('tl_1', 5));
        expect(await store.tasks.taskSeqOf('tl_1')).toBe(9);
        expect(await store.tasks.idOfSeq('tl_1', 9)).toBe('T-9');
        expect(await store.tasks.idOfSeq('tl_1', 3)).toBeNull();
        await expect(tx((r) => r.tasks.insert({ ...taskRec('T-1', 0, { listId: 'tl_404' }), seq: undefined }))).rejects.toThrow();
      });

      it('a rolled-back transaction gives its numbers back', async () => {
        await expect(
          tx(async (r) => {
            await r.tasks.insert({ ...taskRec('T-1', 0), seq: undefined });
            await changesOnly(r, 'tl_1', 'T-1');
            throw new Error('boom');
          }),
        ).rejects.toThrow('boom');
        expect(await tx((r) => r.tasks.insert({ ...taskRec('T-1', 0), seq: undefined }))).toBe(1);
        expect(await store.tasks.feedPosition('tl_1')).toBe(0);
      });
    });

    describe('tasks', () => {
      it('ids are unique per list; seq is unique per list; the list must exist', async () => {
        await seed(['pending']);
        expect(await store.tasks.taken('tl_1', { ids: ['T-1', 'T-2'], seqs: [1, 2] })).toEqual({ ids: ['T-1'], seqs: [1] });
        await refuses(
          tx((r) => r.tasks.insert(taskRec('T-1', 9))),
          'task (tl_1, T-1) already exists',
        );
        await refuses(
          tx((r) => r.tasks.insert(taskRec('T-2', 1))),
          'task (tl_1, seq 1) already exists',
        );
        await refuses(
          tx((r) => r.tasks.insert(taskRec('T-2', 2, { listId: 'tl_404' }))),
          'task references missing list tl_404',
        );
        expect(await store.tasks.taken('tl_1', { ids: ['T-2'] })).toEqual({ ids: [], seqs: [] });
      });

      it('get is scoped to the list; reads are copies', async () => {
        await seed(['pending'], ['pending'], ['pending']);
        expect(await store.tasks.get('tl_2', 'T-1')).toBeNull();
        const read = (await store.tasks.get('tl_1', 'T-1'))!;
        read.subject = 'changed';
        read.metadata.x = 1;
        expect(await store.tasks.get('tl_1', 'T-1')).toEqual(taskRec('T-1', 1));
      });

      it('commit is a compare-and-set on the version, leaves the keys and creation facts alone, and writes all or nothing', async () => {
        await seed(['pending'], ['pending']);
        const later = at(60_000);
        const next = { ...taskRec('T-1', 1), subject: 'new', version: 2, updatedAt: later };
        const write = (task: TaskRecord, fromVersion: number, changes: Omit<TaskChangeRecord, 'seq'>[] = []) =>
          tx((r) => r.tasks.commit('tl_1', { tasks: [{ task, fromVersion }], changes, readiness: [] }));
        expect(await write(next, 2)).toBeNull();
        // With its change records (one statement on PostgreSQL): no feed position taken, nothing recorded.
        expect(await write(next, 2, [withoutSeq(change(0, 'T-1'))])).toBeNull();
        expect((await store.tasks.get('tl_1', 'T-1'))!.version).toBe(1);
        expect(await write({ ...next, seq: 99, createdAt: later }, 1)).toEqual([]);
        expect(await store.tasks.get('tl_1', 'T-1')).toEqual(taskRec('T-1', 1, { subject: 'new', version: 2, updatedAt: later }));
        expect(await write(next, 1)).toBeNull();
        expect(await write(taskRec('T-9', 9), 1)).toBeNull();
        // Its change records are numbered at the list's next feed positions and answered as stored.
        const t2 = (await store.tasks.get('tl_1', 'T-2'))!;
        const records = await tx((r) =>
          r.tasks.commit('tl_1', {
            tasks: [{ task: { ...t2, subject: 'two', version: 2 }, fromVersion: 1 }],
            changes: [withoutSeq(change(0, 'T-2')), withoutSeq(change(0, 'T-1'))],
            readiness: [],
          }),
        );
        expect(records).toEqual([change(1, 'T-2'), change(2, 'T-1')]);
        expect(await store.tasks.changesAfter('tl_1', 0, 10)).toEqual(records);
      });
    });

    describe('edges', () => {
      beforeEach(() => seed(['pending'], ['pending'], ['pending'], ['pending']));

      it('are unique per (blocker, blocked), need both tasks, and keep insertion order', async () => {
        const outcomes = await tx(async (r) => [
          await r.tasks.addEdge('tl_1', edge('T-3', 'T-4')),
          await r.tasks.addEdge('tl_1', edge('T-1', 'T-4')),
          await r.tasks.addEdge('tl_1', edge('T-2', 'T-3')),
          await r.tasks.addEdge('tl_1', edge('T-3', 'T-4')),
        ]);
        expect(outcomes).toEqual([{ added: true }, { added: true }, { added: true }, { added: false }]);
        await refuses(
          tx((r) => r.tasks.addEdge('tl_1', edge('T-3', 'T-9'))),
          'task edge references missing task T-9',
        );
        expect(await store.tasks.edgesOf('tl_1', ['T-4'])).toEqual([edge('T-3', 'T-4'), edge('T-1', 'T-4')]);
        expect(await store.tasks.edgesOf('tl_1', ['T-3'])).toEqual([edge('T-3', 'T-4'), edge('T-2', 'T-3')]);
      });

      it('an edge that would close a cycle is not added: the answer names the cycle, however deep', async () => {
        await tx(async (r) => {
          await r.tasks.addEdge('tl_1', edge('T-1', 'T-2'));
          await r.tasks.addEdge('tl_1', edge('T-2', 'T-3'));
          await r.tasks.addEdge('tl_1', edge('T-3', 'T-4'));
        });
        expect(await tx((r) => r.tasks.addEdge('tl_1', edge('T-4', 'T-1')))).toEqual({
          added: false,
          cycle: ['T-1', 'T-2', 'T-3', 'T-4', 'T-1'],
        });
        expect(await tx((r) => r.tasks.addEdge('tl_1', edge('T-3', 'T-2')))).toEqual({ added: false, cycle: ['T-2', 'T-3', 'T-2'] });
        expect(await store.tasks.edgesOf('tl_1', ['T-1', 'T-2'])).toEqual([edge('T-1', 'T-2'), edge('T-2', 'T-3')]);
        // A shortcut closes nothing: added; the same edge again is not.
        expect(await tx((r) => r.tasks.addEdge('tl_1', edge('T-1', 'T-3')))).toEqual({ added: true });
        expect(await tx((r) => r.tasks.addEdge('tl_1', edge('T-1', 'T-3')))).toEqual({ added: false });
      });

      it('an edge against the creation order that closes nothing is added, and the walk sees it afterwards', async () => {
        await tx(async (r) => {
          await r.tasks.addEdge('tl_1', edge('T-4', 'T-3'));
          await r.tasks.addEdge('tl_1', edge('T-3', 'T-2'));
        });
        expect(await tx((r) => r.tasks.addEdge('tl_1', edge('T-2', 'T-4')))).toEqual({ added: false, cycle: ['T-4', 'T-3', 'T-2', 'T-4'] });
        expect(await tx((r) => r.tasks.addEdge('tl_1', edge('T-1', 'T-4')))).toEqual({ added: true });
        expect(await tx((r) => r.tasks.addEdge('tl_1', edge('T-2', 'T-1')))).toEqual({
          added: false,
          cycle: ['T-1', 'T-4', 'T-3', 'T-2', 'T-1'],
        });
      });

      it('removing is by the pair and answers the edges that were there, in their order; a re-added edge goes last', async () => {
        const removed = await tx(async (r) => {
          await r.tasks.addEdge('tl_1', edge('T-1', 'T-4'));
          await r.tasks.addEdge('tl_1', edge('T-2', 'T-4'));
          const there = await r.tasks.removeEdges('tl_1', [edge('T-1', 'T-4'), edge('T-4', 'T-1')]);
          await r.tasks.addEdge('tl_1', edge('T-1', 'T-4'));
          return there;
        });
        expect(removed).toEqual([edge('T-1', 'T-4')]);
        expect(await store.tasks.edgesOf('tl_1', ['T-4'])).toEqual([edge('T-2', 'T-4'), edge('T-1', 'T-4')]);
        // Many at once (a task's every edge): all that were there, in insertion order.
        await tx(async (r) => {
          await r.tasks.addEdge('tl_1', edge('T-3', 'T-1'));
          await r.tasks.addEdge('tl_1', edge('T-3', 'T-2'));
        });
        const all = await tx((r) =>
          r.tasks.removeEdges('tl_1', [edge('T-3', 'T-2'), edge('T-1', 'T-4'), edge('T-3', 'T-1'), edge('T-2', 'T-4')]),
        );
        expect(all).toEqual([edge('T-2', 'T-4'), edge('T-1', 'T-4'), edge('T-3', 'T-1'), edge('T-3', 'T-2')]);
        expect(await store.tasks.edgesOf('tl_1', ['T-1', 'T-2', 'T-3', 'T-4'])).toEqual([]);
      });

      it('getMany answers the tasks of the list with those ids that exist, in seq order', async () => {
        expect((await store.tasks.getMany('tl_1', ['T-3', 'T-1', 'T-9'])).map((t) => t.id)).toEqual(['T-1', 'T-3']);
        expect(await store.tasks.getMany('tl_2', ['T-1'])).toEqual([]);
      });

      it('unresolved blockers: those neither completed nor deleted', async () => {
        await tx(async (r) => {
          for (const blocker of ['T-1', 'T-2', 'T-3']) await r.tasks.addEdge('tl_1', edge(blocker, 'T-4'));
          await r.tasks.addEdge('tl_1', edge('T-1', 'T-2'));
        });
        await tx(async (r) => {
          await setStatus(r, 'tl_1', 'T-1', 'completed');
          await setStatus(r, 'tl_1', 'T-3', 'deleted');
        });
        // Wait: T-3 deleted, T-1 completed, so only T-2 blocks T-4.
        expect(await store.tasks.unresolvedBlockers('tl_1', ['T-4'])).toEqual([edge('T-2', 'T-4')]);
        expect(await store.tasks.unresolvedBlockers('tl_1', ['T-2', 'T-4'])).toEqual([edge('T-2', 'T-4')]);
        expect(await store.tasks.unresolvedBlockers('tl_1', ['T-1'])).toEqual([]);
      });
    });

    describe('trust reads', () => {
      const note = (taskId: string, listId: string, ms: number, text: string, success = true) => ({
        listId,
        taskId,
        provenance: 'agent' as const,
        success,
        body: { kind: 'note' as const, text },
        at: at(ms),
      });

      it('trustOf: the evidence (oldest first), leases and requirements (by name) of the tasks asked, as the three reads give them', async () => {
        await tx(async (r) => {
          await r.tasks.createList(listRec('tl_2', 'other'));
          await r.trust.addEvidence([note('T-2', 'tl_1', 5, 'second task'), note('T-1', 'tl_1', 1, 'first, failed', false)]);
          await r.trust.addEvidence([note('T-1', 'tl_1', 9, 'first, passed'), note('T-1', 'tl_2', 3, 'another list')]);
          await r.trust.putLease({ listId: 'tl_1', taskId: 'T-1', owner: 'alice', leaseMs: 60_000, expiresAt: at(60_000) });
          await r.trust.putLease({ listId: 'tl_2', taskId: 'T-1', owner: 'bob', leaseMs: 1_000, expiresAt: at(1_000) });
          await r.trust.putLease({ listId: 'tl_1', taskId: 'T-3', owner: 'carol', leaseMs: 5_000, expiresAt: at(5_000) });
          await r.trust.setRequirements('tl_1', 'T-1', ['tool:browser', 'role:reviewer']);
          await r.trust.setRequirements('tl_1', 'T-2', ['tool:shell']);
        });
        const asked = ['T-1', 'T-2'];
        const read = await store.trust.trustOf('tl_1', asked);
        expect(read).toEqual({
          evidence: [
            note('T-2', 'tl_1', 5, 'second task'),
            note('T-1', 'tl_1', 1, 'first, failed', false),
            note('T-1', 'tl_1', 9, 'first, passed'),
          ],
          leases: [{ listId: 'tl_1', taskId: 'T-1', owner: 'alice', leaseMs: 60_000, expiresAt: at(60_000) }],
          requirements: [
            { taskId: 'T-1', capability: 'role:reviewer' },
            { taskId: 'T-1', capability: 'tool:browser' },
            { taskId: 'T-2', capability: 'tool:shell' },
          ],
        });
        expect(read.evidence).toEqual(await store.trust.evidenceOf('tl_1', asked));
        expect(read.leases).toEqual(await store.trust.leasesOf('tl_1', asked));
        expect(read.requirements).toEqual(await store.trust.requirementsOf('tl_1', asked));
        expect(await store.trust.trustOf('tl_1', ['T-3'])).toEqual({
          evidence: [],
          leases: [{ listId: 'tl_1', taskId: 'T-3', owner: 'carol', leaseMs: 5_000, expiresAt: at(5_000) }],
          requirements: [],
        });
        expect(await store.trust.trustOf('tl_1', ['T-9'])).toEqual({ evidence: [], leases: [], requirements: [] });
        expect(await store.trust.trustOf('tl_1', [])).toEqual({ evidence: [], leases: [], requirements: [] });
        // A page of a list with no requirement at all (tl_2): its own evidence and lease, none of tl_1's requirements.
        expect(await store.trust.trustOf('tl_2', ['T-1', 'T-2', 'T-3'])).toEqual({
          evidence: [note('T-1', 'tl_2', 3, 'another list')],
          leases: [{ listId: 'tl_2', taskId: 'T-1', owner: 'bob', leaseMs: 1_000, expiresAt: at(1_000) }],
          requirements: [],
        });
        expect(await store.trust.trustOf('tl_9', asked)).toEqual({ evidence: [], leases: [], requirements: [] });
      });
      it('trustOf over more tasks than one statement binds: every chunk read, evidence oldest first across them', async () => {
        const many = Array.from({ length: 700 }, (_, i) => `T-${i + 1}`);
        await tx(async (r) => {
          await r.trust.addEvidence([
            note('T-700', 'tl_1', 1, 'last task, first note'),
            note('T-350', 'tl_1', 2, 'middle'),
            note('T-1', 'tl_1', 3, 'first'),
          ]);
          await r.trust.putLease({ listId: 'tl_1', taskId: 'T-699', owner: 'alice', leaseMs: 1_000, expiresAt: at(1_000) });
          await r.trust.setRequirements('tl_1', 'T-400', ['tool:browser']);
        });
        const read = await store.trust.trustOf('tl_1', many);
        expect(read.evidence.map((e) => e.taskId)).toEqual(['T-700', 'T-350', 'T-1']);
        expect(read.leases.map((l) => l.taskId)).toEqual(['T-699']);
        expect(read.requirements).toEqual([{ taskId: 'T-400', capability: 'tool:browser' }]);
      });
    });

    describe('list, firstReady and graph', () => {
      // T-1 pending alice · T-2 pending · T-3 pending blocked by T-2 · T-4 in_progress bob · T-5 completed · T-6 deleted
      // · T-7 pending blocked by T-5 (completed) and T-6 (deleted) · T-8 pending bob
      beforeEach(async () => {
        await seed(
          ['pending', 'alice'],
          ['pending'],
          ['pending'],
          ['in_progress', 'bob'],
          ['completed'],
          ['deleted'],
          ['pending'],
          ['pending', 'bob'],
        );
        await tx(async (r) => {
          await r.tasks.addEdge('tl_1', edge('T-2', 'T-3'));
          await r.tasks.addEdge('tl_1', edge('T-5', 'T-7'));
          await r.tasks.addEdge('tl_1', edge('T-6', 'T-7'));
          await r.tasks.addEdge('tl_1', edge('T-4', 'T-8'));
          await r.tasks.addEdge('tl_1', edge('T-5', 'T-2'));
          // Readiness is what the write's `readiness` names: the store keeps it as it likes (a count of open blockers).
          await readiness(r, 'tl_1', ['T-2', 'T-3', 'T-7', 'T-8']);
        });
      });
      const all = { statuses: ['pending', 'in_progress', 'completed', 'deleted'] as TaskStatus[], limit: 100 };

      it('filters by status and owner, in seq order, up to the limit', async () => {
        expect(ids(await store.tasks.list('tl_1', all))).toEqual(['T-1', 'T-2', 'T-3', 'T-4', 'T-5', 'T-6', 'T-7', 'T-8']);
        expect(ids(await store.tasks.list('tl_1', { statuses: ['in_progress', 'completed'], limit: 100 }))).toEqual(['T-4', 'T-5']);
        expect(ids(await store.tasks.list('tl_1', { ...all, owner: 'bob' }))).toEqual(['T-4', 'T-8']);
        expect(ids(await store.tasks.list('tl_1', { ...all, limit: 3 }))).toEqual(['T-1', 'T-2', 'T-3']);
        expect(ids(await store.tasks.list('tl_2', all))).toEqual([]);
      });

      it('a page holds summaries: the fields TaskList shows, each as the task has it, and nothing more', async () => {
        await tx((r) =>
          r.tasks.insert(
            taskRec('T-9', 9, {
              status: 'pending',
              owner: 'carol',
              activeForm: 'Shipping',
              priority: 'P1',
              labels: ['ui', 'a%b'],
              version: 4,
              description: 'Not on a page',
              metadata: { kept: 'elsewhere' },
            }),
          ),
        );
        const [summary] = await store.tasks.list('tl_1', { ...all, owner: 'carol' });
        expect(summary).toEqual({
          id: 'T-9',
          seq: 9,
          subject: taskRec('T-9', 9).subject,
          status: 'pending',
          activeForm: 'Shipping',
          owner: 'carol',
          priority: 'P1',
          labels: ['ui', 'a%b'],
          version: 4,
        });
        const [plain] = await store.tasks.list('tl_1', { ...all, limit: 1 });
        expect(plain).toMatchObject({ id: 'T-1', activeForm: null, priority: null, labels: [] });
      });

      it('readyFor: pending, unowned or the agent own, every blocker completed or deleted', async () => {
        expect(ids(await store.tasks.list('tl_1', { ...all, readyFor: 'alice' }))).toEqual(['T-1', 'T-2', 'T-7']);
        expect(ids(await store.tasks.list('tl_1', { ...all, readyFor: 'bob' }))).toEqual(['T-2', 'T-7']);
        expect(ids(await store.tasks.list('tl_1', { ...all, readyFor: 'alice', owner: 'alice' }))).toEqual(['T-1']);
      });

      it('firstReady is the oldest ready task for the agent, or null', async () => {
        expect((await store.tasks.firstReady('tl_1', 'alice'))!.id).toBe('T-1');
        expect((await store.tasks.firstReady('tl_1', 'bob'))!.id).toBe('T-2');
        expect(await store.tasks.firstReady('tl_2', 'bob')).toBeNull();
      });

      it('graph: the tasks with the statuses, and only the edges among them', async () => {
        const g = await store.tasks.graph('tl_1', ['pending', 'in_progress']);
        expect(ids(g.tasks)).toEqual(['T-1', 'T-2', 'T-3', 'T-4', 'T-7', 'T-8']);
        expect(g.edges).toEqual([edge('T-2', 'T-3'), edge('T-4', 'T-8')]);
      });
    });

    describe('change log', () => {
      it('is numbered per list in write order; read per task and per list after a position, oldest first', async () => {
        await seed(['pending'], ['pending']);
        await tx(async (r) => {
          await changesOnly(r, 'tl_1', 'T-2', 'T-1');
          await changesOnly(r, 'tl_1', 'T-1');
        });
        expect((await store.tasks.changesOf('tl_1', 'T-1')).map((c) => c.seq)).toEqual([2, 3]);
        expect((await store.tasks.changesAfter('tl_1', 1, 10)).map((c) => c.seq)).toEqual([2, 3]);
        expect((await store.tasks.changesAfter('tl_1', 0, 2)).map((c) => c.seq)).toEqual([1, 2]);
        expect(await store.tasks.changesAfter('tl_2', 0, 10)).toEqual([]);
        expect((await store.tasks.changesOf('tl_1', 'T-2'))[0]).toEqual(change(1, 'T-2'));
        expect(await store.tasks.feedPosition('tl_1')).toBe(3);
      });
    });

    describe('ids are scoped to their list', () => {
      // The same ids T-1, T-2, T-3 in tl_1 (ws_1), tl_2 (ws_2) and tl_3 (ws_1): each list sees only its own tasks.
      beforeEach(() =>
        tx(async (r) => {
          await r.workspaces.create(ws('ws_2'));
          await r.tasks.createList(listRec('tl_2', 'default', 'ws_2'));
          await r.tasks.createList(listRec('tl_3', 'other'));
          for (const listId of ['tl_1', 'tl_2', 'tl_3']) {
            for (const n of [1, 2, 3]) await r.tasks.insert(taskRec(`T-${n}`, n, { listId, subject: `${listId} ${n}` }));
          }
          await r.tasks.addEdge('tl_1', edge('T-1', 'T-2'));
          await r.tasks.addEdge('tl_1', edge('T-2', 'T-3'));
          await readiness(r, 'tl_1', ['T-2', 'T-3']);
        }),
      );

      it('one id in several lists; taken and get answer per list; a duplicate in one list is refused', async () => {
        expect((await store.tasks.taken('tl_2', { ids: ['T-1', 'T-3', 'T-9'] })).ids).toEqual(['T-1', 'T-3']);
        expect(await store.tasks.taken('tl_404', { ids: ['T-1'], seqs: [1] })).toEqual({ ids: [], seqs: [] });
        expect(await store.tasks.taken('tl_3', { ids: ['T-2'], seqs: [2, 3, 4] })).toEqual({ ids: ['T-2'], seqs: [2, 3] });
        expect((await store.tasks.get('tl_2', 'T-1'))!.subject).toBe('tl_2 1');
        expect((await store.tasks.get('tl_3', 'T-2'))!.subject).toBe('tl_3 2');
        await refuses(
          tx((r) => r.tasks.insert(taskRec('T-1', 9, { listId: 'tl_2' }))),
          'already exists',
        );
      });

      it('a write changes only the task of its own list', async () => {
        const mine = (await store.tasks.get('tl_2', 'T-1'))!;
        const write = (listId: string) =>
          tx((r) =>
            r.tasks.commit(listId, {
              tasks: [{ task: { ...mine, subject: 'changed', version: 2 }, fromVersion: 1 }],
              changes: [],
              readiness: [],
            }),
          );
        expect(await write('tl_2')).toEqual([]);
        expect((await store.tasks.get('tl_2', 'T-1'))!).toMatchObject({ subject: 'changed', version: 2 });
        expect((await store.tasks.get('tl_1', 'T-1'))!).toMatchObject({ subject: 'tl_1 1', version: 1 });
        expect((await store.tasks.get('tl_3', 'T-1'))!).toMatchObject({ subject: 'tl_3 1', version: 1 });
        // A compare-and-set in another list misses.
        expect(await write('tl_404')).toBeNull();
      });

      it("edges, cycle checks and readiness read only the list's own edges", async () => {
        expect(await store.tasks.edgesOf('tl_2', ['T-1', 'T-2', 'T-3'])).toEqual([]);
        expect(await tx((r) => r.tasks.addEdge('tl_2', edge('T-3', 'T-1')))).toEqual({ added: true });
        expect(await tx((r) => r.tasks.addEdge('tl_1', edge('T-3', 'T-1')))).toEqual({ added: false, cycle: ['T-1', 'T-2', 'T-3', 'T-1'] });
        await tx((r) => r.tasks.removeEdges('tl_2', [edge('T-3', 'T-1')]));
        expect(await store.tasks.unresolvedBlockers('tl_1', ['T-2'])).toEqual([edge('T-1', 'T-2')]);
        expect(await store.tasks.unresolvedBlockers('tl_2', ['T-2'])).toEqual([]);
        expect((await store.tasks.firstReady('tl_1', 'a'))!.id).toBe('T-1');
        expect(ids(await store.tasks.list('tl_2', { statuses: ['pending'], readyFor: 'a', limit: 10 }))).toEqual(['T-1', 'T-2', 'T-3']);
        // The same pair may be an edge of another list; removing it there leaves this list's edge.
        await tx(async (r) => {
          await r.tasks.addEdge('tl_2', edge('T-1', 'T-2'));
          await readiness(r, 'tl_2', ['T-2']);
        });
        expect(await store.tasks.edgesOf('tl_2', ['T-2'])).toEqual([edge('T-1', 'T-2')]);
        expect(await tx((r) => r.tasks.removeEdges('tl_2', [edge('T-2', 'T-3')]))).toEqual([]);
        expect(await tx((r) => r.tasks.removeEdges('tl_3', [edge('T-1', 'T-2')]))).toEqual([]);
        expect(await store.tasks.edgesOf('tl_1', ['T-2'])).toEqual([edge('T-1', 'T-2'), edge('T-2', 'T-3')]);
        expect(await store.tasks.edgesOf('tl_2', ['T-2'])).toEqual([edge('T-1', 'T-2')]);
        expect((await store.tasks.graph('tl_2', ['pending'])).edges).toEqual([edge('T-1', 'T-2')]);
        // Completing T-1 of tl_2 unblocks its own T-2 only.
        await tx(async (r) => {
          await setStatus(r, 'tl_2', 'T-1', 'completed', ['T-2']);
          await readiness(r, 'tl_1', ['T-2']);
        });
        expect(await store.tasks.unresolvedBlockers('tl_2', ['T-2'])).toEqual([]);
        expect(await store.tasks.unresolvedBlockers('tl_1', ['T-2'])).toEqual([edge('T-1', 'T-2')]);
        expect(ids(await store.tasks.list('tl_1', { statuses: ['pending'], readyFor: 'a', limit: 10 }))).toEqual(['T-1']);
        expect(ids(await store.tasks.list('tl_2', { statuses: ['pending'], readyFor: 'a', limit: 10 }))).toEqual(['T-2', 'T-3']);
      });

      it('an edge needs both tasks in its own list, whatever other lists hold', async () => {
        await tx((r) => r.tasks.createList(listRec('tl_4', 'fourth')));
        await tx((r) => r.tasks.insert(taskRec('T-1', 1, { listId: 'tl_4' })));
        await refuses(
          tx((r) => r.tasks.addEdge('tl_4', edge('T-1', 'T-2'))),
          'missing task T-2',
        );
        expect(await store.tasks.edgesOf('tl_4', ['T-1'])).toEqual([]);
      });

      it('the change log of a task is read in its own list', async () => {
        await tx(async (r) => {
          await changesOnly(r, 'tl_1', 'T-1');
          await changesOnly(r, 'tl_2', 'T-1', 'T-1');
        });
        expect((await store.tasks.changesOf('tl_1', 'T-1')).map((c) => c.seq)).toEqual([1]);
        expect((await store.tasks.changesOf('tl_2', 'T-1')).map((c) => [c.listId, c.seq])).toEqual([
          ['tl_2', 1],
          ['tl_2', 2],
        ]);
        expect(await store.tasks.changesOf('tl_3', 'T-1')).toEqual([]);
      });
    });

    describe('imports (staged in short transactions, then published at once)', () => {
      // A staging list tl_s holding T-1 ← T-2 (staged as #from, #from + 1) and their two changes; the list tl_1 holds T-9 (#1).
      const staging = listRec('tl_s', ':import:1');
      const stage = async (from = 2) => {
        const staged = [taskRec('T-1', from, { listId: 'tl_s' }), taskRec('T-2', from + 1, { listId: 'tl_s' })];
        await tx((r) => r.tasks.stageImport(staging, at(0), { tasks: staged }));
        await tx((r) => r.tasks.stageImport(staging, at(0), { edges: [edge('T-1', 'T-2')] }));
        await tx((r) => r.tasks.stageImport(staging, at(0), { graph: [edge('T-1', 'T-2')] }));
        await tx((r) => r.tasks.stageImport(staging, at(0), { changes: [change(1, 'T-1', 'tl_s'), change(2, 'T-2', 'tl_s')] }));
        await tx((r) => r.tasks.insert({ ...taskRec('T-9', 0), seq: undefined }));
      };

      it('are never found by name nor listed; a staging list is what an import in progress is seen by', async () => {
        await stage();
        expect(await store.tasks.findList('ws_1', ':import:1')).toBeNull();
        expect(await store.tasks.listNames('ws_1')).toEqual(['default']);
        expect((await store.tasks.lists('ws_1')).map((l) => l.name)).toEqual(['default']);
        expect(await store.tasks.taskSeqOf('tl_1')).toBe(1);
        expect(await tx((r) => r.tasks.importInProgress('ws_1'))).toEqual(at(0));
        expect(await tx((r) => r.tasks.importInProgress('ws_2'))).toBeNull();
        // Staged rows are ready as staged: readiness is kept for them too.
        expect(ids(await store.tasks.list('tl_s', { statuses: ['pending'], readyFor: 'a', limit: 10 }))).toEqual(['T-1']);
      });

      it('into a list: tasks move with the next numbers, their edges and changes after the feed, and the staging list goes', async () => {
        await stage();
        const shift = await tx((r) => r.tasks.publishImport('tl_s', { listId: 'tl_1', stagedFrom: 2 }, 2));
        expect(shift).toEqual({ taskShift: 0, firstChange: 1 });
        expect([...(await store.tasks.graph('tl_1', ['pending'])).tasks].map((t) => [t.id, t.seq])).toEqual([
          ['T-9', 1],
          ['T-1', 2],
          ['T-2', 3],
        ]);
        expect(await store.tasks.taskSeqOf('tl_1')).toBe(3);
        expect(await store.tasks.edgesOf('tl_1', ['T-2'])).toEqual([edge('T-1', 'T-2')]);
        expect(await store.tasks.edgesOf('tl_s', ['T-2'])).toEqual([]);
        expect((await store.tasks.firstReady('tl_1', 'a'))!.id).toBe('T-9');
        expect(ids(await store.tasks.list('tl_1', { statuses: ['pending'], readyFor: 'a', limit: 10 }))).toEqual(['T-9', 'T-1']);
        expect((await store.tasks.changesAfter('tl_1', 0, 10)).map((c) => [c.taskId, c.seq])).toEqual([
          ['T-1', 1],
          ['T-2', 2],
        ]);
        expect(await store.tasks.changesAfter('tl_s', 0, 10)).toEqual([]);
        expect(await store.tasks.taskSeqOf('tl_s')).toBe(0);
        expect(await tx((r) => r.tasks.importInProgress('ws_1'))).toBeNull();
        // Its order moved with it: an edge against it is still refused as a cycle.
        expect(await tx((r) => r.tasks.addEdge('tl_1', edge('T-2', 'T-1')))).toEqual({ added: false, cycle: ['T-1', 'T-2', 'T-1'] });
        await expect(tx((r) => r.tasks.publishImport('tl_1', { listId: 'tl_1', stagedFrom: 1 }, 0))).rejects.toThrow(
          'task list tl_1 is not a staging list',
        );
      });

      it('into a list that moved on: the numbers shift and the staged change records are dropped, to be written again', async () => {
        await stage(5);
        await tx((r) => changesOnly(r, 'tl_1', 'T-9'));
        const shift = await tx((r) => r.tasks.publishImport('tl_s', { listId: 'tl_1', stagedFrom: 5 }, 2));
        expect(shift.taskShift).toBe(-3);
        expect((await store.tasks.graph('tl_1', ['pending'])).tasks.map((t) => [t.id, t.seq])).toEqual([
          ['T-9', 1],
          ['T-1', 2],
          ['T-2', 3],
        ]);
        expect((await store.tasks.changesAfter('tl_1', 0, 10)).map((c) => [c.taskId, c.seq])).toEqual([['T-9', 1]]);
        expect(await store.tasks.feedPosition('tl_1')).toBe(1);
      });

      it('keeping its numbers: none shift, and the counter is raised to the highest kept', async () => {
        await stage(5);
        expect(await tx((r) => r.tasks.publishImport('tl_s', { listId: 'tl_1', stagedFrom: 5, keepNumbers: 8 }, 2))).toEqual({
          taskShift: 0,
          firstChange: 1,
        });
        expect((await store.tasks.graph('tl_1', ['pending'])).tasks.map((t) => t.seq)).toEqual([1, 5, 6]);
        expect(await store.tasks.taskSeqOf('tl_1')).toBe(8);
      });

      it('into a new list: the staging list becomes it, counters set', async () => {
        await stage(5);
        expect(await tx((r) => r.tasks.publishImport('tl_s', { name: 'imported', taskSeq: 6 }, 2))).toEqual({
          taskShift: 0,
          firstChange: 1,
        });
        expect(await store.tasks.findList('ws_1', 'imported')).toEqual(listRec('tl_s', 'imported'));
        expect(await store.tasks.taskSeqOf('tl_s')).toBe(6);
        expect(await store.tasks.feedPosition('tl_s')).toBe(2);
        expect(await store.tasks.edgesOf('tl_s', ['T-1'])).toEqual([edge('T-1', 'T-2')]);
        await expect(tx((r) => r.tasks.publishImport('tl_s', { name: 'again', taskSeq: 6 }, 2))).rejects.toThrow(
          'task list tl_s is not a staging list',
        );
      });

      it('an abandoned import goes with its rows, its counter put back; one not written for the lease is removed by the next check', async () => {
        await tx(async (r) => {
          await r.tasks.stageImport(listRec('tl_old', ':import:old'), at(-60_000), { tasks: [taskRec('T-1', 1, { listId: 'tl_old' })] });
          await r.tasks.stageImport(listRec('tl_new', ':import:new'), at(0), { tasks: [taskRec('T-1', 1, { listId: 'tl_new' })] });
          await r.tasks.stageImport(listRec('tl_new', ':import:new'), at(0), { changes: [change(1, 'T-1', 'tl_new')] });
        });
        expect(await tx((r) => r.tasks.importInProgress('ws_1'))).toEqual(at(0));
        // Written since it was made: its heartbeat keeps it from being taken for abandoned.
        await tx((r) => r.tasks.stageImport(listRec('tl_new', ':import:new'), at(10), {}));
        expect(await tx((r) => r.tasks.importInProgress('ws_1', at(5)))).toEqual(at(10));
        expect(await store.tasks.get('tl_old', 'T-1')).toBeNull();
        expect(await store.tasks.get('tl_new', 'T-1')).not.toBeNull();
        await tx((r) => r.tasks.raiseTaskSeq('tl_1', 7));
        await tx((r) => r.tasks.abandonImport('tl_new', { listId: 'tl_1', from: 0, to: 7 }));
        expect(await tx((r) => r.tasks.importInProgress('ws_1'))).toBeNull();
        expect(await store.tasks.get('tl_new', 'T-1')).toBeNull();
        expect(await store.tasks.changesAfter('tl_new', 0, 10)).toEqual([]);
        expect(await store.tasks.taskSeqOf('tl_1')).toBe(0);
        // A counter a task moved on meanwhile stays; a real list is never abandoned.
        await tx((r) => r.tasks.insert({ ...taskRec('T-1', 0), seq: undefined }));
        await tx((r) => r.tasks.abandonImport('tl_1', { listId: 'tl_1', from: 0, to: 7 }));
        expect(await store.tasks.taskSeqOf('tl_1')).toBe(1);
        expect((await store.tasks.get('tl_1', 'T-1'))!.id).toBe('T-1');
        await expect(tx((r) => r.tasks.stageImport(listRec('tl_1', 'default'), at(0), {}))).rejects.toThrow();
      });
    });

    it('task writes of a failed transaction leave nothing', async () => {
      const before = await under.snapshot();
      await expect(
        tx(async (r) => {
          await r.tasks.insert({ ...taskRec('T-1', 0), seq: undefined });
          await r.tasks.insert({ ...taskRec('T-2', 0), seq: undefined });
          await r.tasks.addEdge('tl_1', edge('T-1', 'T-2'));
          await changesOnly(r, 'tl_1', 'T-1');
          await r.tasks.stageImport(listRec('tl_s', ':import:1'), at(0), { tasks: [taskRec('T-1', 1, { listId: 'tl_s' })] });
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect(await under.snapshot()).toEqual(before);
    });
  });

  describe('comments and search', () => {
    beforeEach(() =>
      tx(async (repos) => {
        await repos.workspaces.create(ws('ws_1'));
        await repos.sessions.create(ses('ses_1'));
        await repos.tasks.createList(listRec('tl_1', 'default'));
        await repos.tasks.createList(listRec('tl_2', 'other'));
      }),
    );

    /** A comment on `taskId` of `listId`, by a person unless told, at T0 + n minutes. */
    const comment = (taskId: string, body: string, n: number, patch: Partial<Omit<TaskCommentRecord, 'id'>> = {}) => ({
      listId: 'tl_1',
      taskId,
      body,
      author: 'Ada',
      byPerson: true,
      keyId: 'key_1',
      sessionId: null,
      createdAt: at(n),
      ...patch,
    });
    const bodies = (rows: TaskCommentRecord[]) => rows.map((c) => c.body);
    const hitIds = (hits: { taskId: string }[]) => hits.map((h) => h.taskId);
    const insertTasks = (...tasks: TaskRecord[]) =>
      tx(async (r) => {
        for (const t of tasks) await r.tasks.insert(t);
      });

    it('add numbers comments across the store; newest first with a count, per task; after a position oldest first; lastId', async () => {
      await insertTasks(taskRec('T-1', 1), taskRec('T-2', 2), taskRec('T-1', 1, { listId: 'tl_2' }));
      const added = await tx(async (r) => [
        await r.comments.add(comment('T-1', 'first', 1)),
        await r.comments.add(comment('T-2', 'on another task', 2, { byPerson: false, author: 'planner', sessionId: 'ses_1' })),
        await r.comments.add(comment('T-1', 'second', 3)),
        await r.comments.add(comment('T-1', 'in the other list', 4, { listId: 'tl_2' })),
        await r.comments.add(comment('T-1', 'third', 5)),
      ]);
      const ids = added.map((c) => c.id);
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
      expect(new Set(ids).size).toBe(5);
      expect(added[1]).toEqual({
        ...comment('T-2', 'on another task', 2, { byPerson: false, author: 'planner', sessionId: 'ses_1' }),
        id: ids[1],
      });

      expect(bodies(await store.comments.newest('tl_1', 'T-1', 10))).toEqual(['third', 'second', 'first']);
      expect(bodies(await store.comments.newest('tl_1', 'T-1', 2))).toEqual(['third', 'second']);
      expect(await store.comments.count('tl_1', 'T-1')).toBe(3);
      expect(await store.comments.count('tl_2', 'T-1')).toBe(1);
      expect(await store.comments.count('tl_1', 'T-9')).toBe(0);
      expect(bodies(await store.comments.after('tl_1', ids[0]!, 10))).toEqual(['on another task', 'second', 'third']);
      expect(bodies(await store.comments.after('tl_1', 0, 2))).toEqual(['first', 'on another task']);
      expect(bodies(await store.comments.newestFromPeople('tl_1', ids[0]!, 10))).toEqual(['third', 'second']);
      expect(await store.comments.lastId('tl_1')).toBe(ids[4]);
      expect(await store.comments.lastId('tl_2')).toBe(ids[3]);
      // Reads are copies, dates are dates.
      const [read] = await store.comments.newest('tl_1', 'T-1', 1);
      expect(read!.createdAt).toEqual(at(5));
      read!.body = 'changed';
      expect(bodies(await store.comments.newest('tl_1', 'T-1', 1))).toEqual(['third']);
    });

    it("a session's read mark per list: 0 until set, then the last set", async () => {
      await insertTasks(taskRec('T-1', 1));
      expect(await store.comments.readMark('ses_1', 'tl_1')).toBe(0);
      await tx((r) => r.comments.setReadMark('ses_1', 'tl_1', 7));
      await tx((r) => r.comments.setReadMark('ses_1', 'tl_1', 9));
      expect(await store.comments.readMark('ses_1', 'tl_1')).toBe(9);
      expect(await store.comments.readMark('ses_1', 'tl_2')).toBe(0);
    });

    it('a comment needs its task in its list; a refused one leaves nothing', async () => {
      await insertTasks(taskRec('T-1', 1));
      const before = await under.snapshot();
      await refuses(
        tx((r) => r.comments.add(comment('T-9', 'nowhere', 1))),
        'comment on missing task T-9',
      );
      await refuses(
        tx((r) => r.comments.add(comment('T-1', 'wrong list', 1, { listId: 'tl_2' }))),
        'comment on missing task T-1',
      );
      expect(await under.snapshot()).toEqual(before);
    });

    it('search: every word, each also as a prefix, in subject, description or comments; best first, the subject above the rest', async () => {
      await insertTasks(
        taskRec('T-1', 1, { subject: 'Plan the kumquat harvest' }),
        taskRec('T-2', 2, { subject: 'Water the garden', description: 'Mind the kumquat trees' }),
        taskRec('T-3', 3, { subject: 'Order new tools' }),
        taskRec('T-4', 4, { subject: 'Fix the fence' }),
        taskRec('T-5', 5, { subject: 'Kumquat jam', listId: 'tl_2' }),
      );
      await tx((r) => r.comments.add(comment('T-3', 'The kumquat boxes are ready', 1)));

      const hits = await store.search.search('tl_1', ['kumquat'], 10);
      expect(hitIds(hits)).toEqual(['T-1', 'T-2', 'T-3']);
      expect(hits[0]!.rank).toBeGreaterThan(hits[1]!.rank);
      expect(hits[1]!.rank).toBeGreaterThan(hits[2]!.rank);
      expect(hits[0]).toMatchObject({ taskId: 'T-1', seq: 1, subject: 'Plan the kumquat harvest', status: 'pending' });
      // The match is highlighted between [ and ].
      expect(hits[0]!.snippet).toContain('[kumquat]');
      // A word's beginning finds it; every word must match; limit; another list's tasks are never found.
      expect(hitIds(await store.search.search('tl_1', ['kumq'], 10))).toEqual(['T-1', 'T-2', 'T-3']);
      expect(hitIds(await store.search.search('tl_1', ['kumquat', 'garden'], 10))).toEqual(['T-2']);
      expect(hitIds(await store.search.search('tl_1', ['kumquat', 'boxes'], 10))).toEqual(['T-3']);
      expect(hitIds(await store.search.search('tl_1', ['kumquat', 'nowhere'], 10))).toEqual([]);
      expect(hitIds(await store.search.search('tl_1', ['kumquat'], 2))).toEqual(['T-1', 'T-2']);
      expect(hitIds(await store.search.search('tl_2', ['kumquat'], 10))).toEqual(['T-5']);
      expect(await store.search.search('tl_1', [], 10)).toEqual([]);
    });

    it("search follows a task's writes: a changed subject, a status, and a deleted task never found", async () => {
      await insertTasks(taskRec('T-1', 1, { subject: 'Paint the shed' }), taskRec('T-2', 2, { subject: 'Paint the door' }));
      await tx((r) => r.comments.add(comment('T-2', 'use the blue paint', 1)));
      const write = (id: string, patch: Partial<TaskRecord>) =>
        tx(async (r) => {
          const t = (await r.tasks.get('tl_1', id))!;
          await r.tasks.commit('tl_1', {
            tasks: [{ task: { ...t, ...patch, version: t.version + 1 }, fromVersion: t.version }],
            changes: [],
            readiness: [],
          });
        });
      await write('T-1', { subject: 'Varnish the shed', status: 'in_progress' });
      expect(hitIds(await store.search.search('tl_1', ['paint'], 10))).toEqual(['T-2']);
      expect(await store.search.search('tl_1', ['varnish'], 10)).toMatchObject([
        { taskId: 'T-1', subject: 'Varnish the shed', status: 'in_progress' },
      ]);
      await write('T-2', { status: 'deleted' });
      expect(await store.search.search('tl_1', ['paint'], 10)).toEqual([]);
      expect(await store.search.search('tl_1', ['blue'], 10)).toEqual([]);
      // A write that names the tasks whose text changed (`texts`, as core's writes do) reindexes those; with its change
      // record, as core's writes have (one statement on PostgreSQL, the reindex after it).
      const t1 = (await store.tasks.get('tl_1', 'T-1'))!;
      const { seq: _seq, ...record } = change(0, 'T-1');
      await tx((r) =>
        r.tasks.commit('tl_1', {
          tasks: [{ task: { ...t1, subject: 'Oil the shed', version: t1.version + 1 }, fromVersion: t1.version }],
          changes: [record],
          readiness: [],
          texts: ['T-1'],
        }),
      );
      expect(await store.search.search('tl_1', ['varnish'], 10)).toEqual([]);
      expect(hitIds(await store.search.search('tl_1', ['oil'], 10))).toEqual(['T-1']);
    });

    it('search sees the writes of its own transaction, the outside only once committed, and nothing of a rolled-back one', async () => {
      await insertTasks(taskRec('T-1', 1, { subject: 'Sweep the porch' }));
      const inside = await tx(async (r) => {
        await r.tasks.insert(taskRec('T-2', 2, { subject: 'Sweep the attic' }));
        await r.comments.add(comment('T-1', 'mind the wasps', 1));
        const seen = [hitIds(await r.search.search('tl_1', ['sweep'], 10)), hitIds(await r.search.search('tl_1', ['wasps'], 10))];
        const outside = hitIds(await store.search.search('tl_1', ['sweep'], 10));
        return { seen, outside };
      });
      expect(inside.seen.map((ids) => [...ids].sort())).toEqual([['T-1', 'T-2'], ['T-1']]);
      expect(inside.outside).toEqual(['T-1']);
      expect(hitIds(await store.search.search('tl_1', ['attic'], 10))).toEqual(['T-2']);
      expect(hitIds(await store.search.search('tl_1', ['wasps'], 10))).toEqual(['T-1']);

      const before = await under.snapshot();
      await expect(
        tx(async (r) => {
          await r.tasks.insert(taskRec('T-3', 3, { subject: 'Sweep the cellar' }));
          await r.comments.add(comment('T-1', 'and the hornets', 2));
          expect(hitIds(await r.search.search('tl_1', ['hornets'], 10))).toEqual(['T-1']);
          throw new Error('boom');
        }),
      ).rejects.toThrow('boom');
      expect(await under.snapshot()).toEqual(before);
      expect(await store.search.search('tl_1', ['cellar'], 10)).toEqual([]);
      expect(await store.search.search('tl_1', ['hornets'], 10)).toEqual([]);
      expect(await store.comments.count('tl_1', 'T-1')).toBe(1);
    });
  });
});
