// Session rules: turn transitions and the standing plan the chat shows (seed 000, "What the chat shows").
import type { TurnState } from '@agent-tasks/schema';
import { DomainError } from './errors.ts';
import type { SessionRecord, TodoUpdateRecord } from './records.ts';

export function nextTurnOnStart(session: Pick<SessionRecord, 'turnNumber' | 'turnState'>): { turnNumber: number; turnState: TurnState } {
  if (session.turnState === 'running') {
    throw new DomainError('CONFLICT', `Error: turn ${session.turnNumber} is still running; end it before starting the next.`);
  }
  return { turnNumber: session.turnNumber + 1, turnState: 'running' };
}

export function nextTurnOnEnd(session: Pick<SessionRecord, 'turnNumber' | 'turnState'>): { turnNumber: number; turnState: TurnState } {
  if (session.turnState !== 'running') throw new DomainError('CONFLICT', 'Error: no turn is running; start one first.');
  return { turnNumber: session.turnNumber, turnState: 'ended' };
}

/**
 * The standing plan is the list recorded during the session's current turn: shown while the turn runs and,
 * finished, after it ends; the next turn's start clears it until that turn records a list.
 */
export function standingPlan(session: Pick<SessionRecord, 'turnNumber'>, latest: TodoUpdateRecord | null) {
  if (!latest || latest.turnNumber !== session.turnNumber) return null;
  return { revision: latest.revision, turnNumber: latest.turnNumber, items: latest.items };
}
