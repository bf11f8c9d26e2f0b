// A run's link (/runs/<id>, its card and live view, answered without a key): revoked and restored by an admin.
import { runLinkTopic } from './live-topics.ts';
import { type Actor, requireRole } from './actor.ts';
import { DomainError } from './errors.ts';
import type { Deps } from './ports.ts';

async function setLink(deps: Deps, actor: Actor, runId: string, enabled: boolean) {
  requireRole(actor, 'admin');
  const at = enabled ? null : deps.clock.now();
  const found = await deps.store.transaction((repos) => repos.runs.setLinkRevoked(actor.workspaceId, runId, at));
  if (!found) throw new DomainError('NOT_FOUND', `Error: run ${runId} not found.`);
  if (!enabled) deps.events.publish({ topic: runLinkTopic(runId), id: String(at?.getTime()), data: { revoked: true } });
  return { runId, linkEnabled: enabled };
}

/** Turns the run's link off: the page, card and live view answer "run not found" until restored. */
export const revokeRunLink = (deps: Deps, actor: Actor, input: { runId: string }) => setLink(deps, actor, input.runId, false);

/** Turns a revoked run link back on. */
export const restoreRunLink = (deps: Deps, actor: Actor, input: { runId: string }) => setLink(deps, actor, input.runId, true);
