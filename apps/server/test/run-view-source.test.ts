// A step's answer told by its source (the run at a version, a time) and made again from another store on the same
// database, as a worker makes the view the writer answered with (`serve --workers`): the same JSON, byte for byte.
import {
  type Actor,
  type Deps,
  type Store,
  keys,
  resolveActor,
  runs,
  sessions,
  sourceOfView,
  viewFromSource,
  workspaces,
} from '@agent-tasks/core';
import type { RunView } from '@agent-tasks/schema';
import { describe, expect, it } from 'vitest';
import { CounterIds, FakeClock, RecordingEvents, prefixHasher } from '../../../packages/core/test/memory-store.ts';
import { type StoreKind, postgresKind, prismaKind } from './support/stores.ts';

const depsOn = (store: Store, clock: FakeClock, ids: CounterIds): Deps => ({
  store,
  clock,
  ids,
  hasher: prefixHasher,
  events: new RecordingEvents(),
  runPage: (runId) => `https://tasks.example.com/runs/${runId}`,
});

const checklist = Array.from({ length: 12 }, (_, i) => ({
  action: `Étape ${i + 1}: vérifier — 検証 ${i + 1} 🙂 "quoted" \\ back`,
  expected_result: `Résultat ${i + 1} ✓`,
}));

/**
 * `work` on a fresh store of `kind` with a first workspace, its admin, an agent session, and a second store on the same
 * database (`elsewhere`, as another process opens it); the stores closed after.
 */
async function withWorld(kind: StoreKind, work: (world: World) => Promise<void>) {
  await kind.setup();
  const under = await kind.open();
  try {
    const clock = new FakeClock();
    const ids = new CounterIds();
    const deps = depsOn(under.store, clock, ids);
    const elsewhere = depsOn(await (under.another as () => Promise<Store>)(), clock, ids);
    const boot = await workspaces.bootstrap(deps);
    if (!boot) throw new Error('expected a first run');
    const admin = await resolveActor(deps, boot.adminKey);
    const agent = await resolveActor(deps, (await keys.create(deps, admin, { name: 'agent', role: 'agent' })).token);
    const session = await resolveActor(deps, (await sessions.open(deps, agent, { title: 'chat' })).token);
    await work({ clock, deps, elsewhere, boot, admin, session });
  } finally {
    await under.close();
    await kind.teardown();
  }
}
type World = {
  clock: FakeClock;
  deps: Deps;
  elsewhere: Deps;
  boot: { workspaceId: string; adminKey: string };
  admin: Actor;
  session: Actor;
};

describe.each([prismaKind(), postgresKind()] as StoreKind[])("a run's view made again from its source on $name", (kind) => {
  it("is the step's answer exactly, from a second store on the database, also after the run moved on", async () => {
    await withWorld(kind, async ({ clock, deps, elsewhere, boot, session }) => {
      const { startAttemptId } = await runs.prepareStart(deps, session, { parentExecutionId: 'none', skipNotificationCheck: true });
      const run = await runs.executeStart(deps, session, { startAttemptId });
      await runs.name(deps, session, { runId: run.id, name: 'Vérification ✓' });
      let view = await runs.intake(deps, session, { runId: run.id, tasks: checklist, progress_checklist_outcome: 'Prêt ✓' });
      const step = async (task: number) => {
        clock.advance(1_500);
        return runs.step(deps, session, {
          runId: run.id,
          task,
          attemptId: view.attemptId ?? '',
          evidence: `vu ${task} ✓`,
          progress_execution_outcome: `étape ${task} faite 🙂`,
        });
      };
      view = await step(1);
      const answer = await step(2);
      const source = sourceOfView(answer);
      const version = (await deps.store.runs.get(boot.workspaceId, run.id))?.version;
      expect(source).toEqual({ workspaceId: boot.workspaceId, runId: run.id, version, at: clock.now().getTime() });
      const again = async () => JSON.stringify(await viewFromSource(elsewhere, source!));
      expect(await again()).toBe(JSON.stringify(answer));

      // The run moved on, the clock too: the source still makes that step's answer (the run rebuilt at its version).
      view = answer;
      const later = await step(3);
      clock.advance(60_000);
      expect(JSON.stringify(later)).not.toBe(JSON.stringify(answer));
      expect(await again()).toBe(JSON.stringify(answer));
      // A version the store does not have yet makes nothing.
      expect(await viewFromSource(elsewhere, { ...source!, version: version! + 5 })).toBeNull();
      // A view read (not a step's answer) names no source: the writer sends such data as it is.
      expect(sourceOfView(await runs.get(deps, session, { runId: run.id }))).toBeUndefined();
    });
  });

  it('is the answer exactly for every call that changes a run: intake with moves and remarks, revision, blocker, note, a child done', async () => {
    await withWorld(kind, async ({ clock, deps, elsewhere, admin, session }) => {
      /** Each answer the same as JSON when made again from its source on the second store, at once and at the end. */
      const answers: RunView[] = [];
      const made = async (answer: RunView) => {
        clock.advance(1_250);
        const source = sourceOfView(answer);
        expect(source).toBeDefined();
        expect(JSON.stringify(await viewFromSource(elsewhere, source!))).toBe(JSON.stringify(answer));
        answers.push(answer);
        return answer;
      };
      const start = async (parentExecutionId: string) => {
        const { startAttemptId } = await runs.prepareStart(deps, session, { parentExecutionId, skipNotificationCheck: true });
        return runs.executeStart(deps, session, { startAttemptId });
      };
      const parent = await start('none');
      await made(await runs.name(deps, session, { runId: parent.id, name: 'Parent ✓' }));
      let view = await made(
        await runs.intake(deps, session, {
          runId: parent.id,
          tasks: checklist.slice(0, 4),
          progress_checklist_outcome: 'Prêt ✓',
          execution_note: 'Note d’exécution 🙂',
          needs: [{ task: 1, needs: [3] }],
          remarks: [{ text: 'Remarque ✓', tasks: [2, 4] }],
        }),
      );
      expect(view.moves.length).toBeGreaterThan(0);
      expect(view.remarks.length).toBeGreaterThan(0);
      const stepOf = (runId: string, at: RunView, task: number) =>
        runs.step(deps, session, {
          runId,
          task,
          attemptId: at.attemptId ?? '',
          evidence: `vu ${task}`,
          progress_execution_outcome: `étape ${task} faite`,
        });
      await made(await stepOf(parent.id, view, 1));
      await made(await runs.reportBlocker(deps, session, { runId: parent.id, blocker: 'En attente ✓' }));
      view = await made(await runs.note(deps, admin, { runId: parent.id, text: 'Une note 🙂' }));
      view = await made(await runs.teleport(deps, session, { runId: parent.id, attemptId: view.attemptId ?? undefined }));
      view = await made(
        await runs.revise(deps, session, {
          runId: parent.id,
          attemptId: view.attemptId ?? undefined,
          // The checklist as intake ordered it (task 1 needs task 3), the task done kept first, one task added.
          tasks: [
            ...view.tasks.slice(0, 3).map(({ action, expected_result }) => ({ action, expected_result })),
            { action: 'Nouvelle étape ✓', expected_result: 'faite' },
          ],
          resume_from_task: 2,
          progress_checklist_outcome: 'Révisé ✓',
          progress_execution_outcome: 'on reprend à 2',
        }),
      );
      // A child walked to its end: its last answer, and the parent's next, which shows the child's connection.
      const child = await start(parent.id);
      await made(await runs.name(deps, session, { runId: child.id, name: 'Enfant ✓' }));
      let childView = await made(
        await runs.intake(deps, session, { runId: child.id, tasks: checklist.slice(0, 1), progress_checklist_outcome: 'ok' }),
      );
      childView = await made(await stepOf(child.id, childView, 1));
      expect(childView.status).toBe('completed');
      view = await made(await stepOf(parent.id, view, 2));
      expect(view.connections).toHaveLength(1);
      // Every one of them again, now that their runs moved on: each rebuilt at its version.
      for (const answer of answers) {
        expect(JSON.stringify(await viewFromSource(elsewhere, sourceOfView(answer)!))).toBe(JSON.stringify(answer));
      }
    });
  });
});
