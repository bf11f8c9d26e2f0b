// Unit tests of the pure session rules: turn transitions and which recorded list is the standing plan.
import { describe, expect, it } from 'vitest';
import { type TodoUpdateRecord, nextTurnOnEnd, nextTurnOnStart, standingPlan } from '../src/index.ts';
import { expectThrows, item } from './fixtures.ts';

const update = (revision: number, turnNumber: number): TodoUpdateRecord => ({
  id: `tdu_${revision}`,
  sessionId: 'ses_1',
  revision,
  turnNumber,
  items: [item('A', 'in_progress')],
  changes: { added: ['A'], removed: [], statusChanged: [] },
  counts: { pending: 0, inProgress: 1, completed: 0 },
  createdAt: new Date('2025-01-01T00:00:00Z'),
});

describe('turn transitions', () => {
  it('starts the first turn from none and the next from ended', () => {
    expect(nextTurnOnStart({ turnNumber: 0, turnState: 'none' })).toEqual({ turnNumber: 1, turnState: 'running' });
    expect(nextTurnOnStart({ turnNumber: 3, turnState: 'ended' })).toEqual({ turnNumber: 4, turnState: 'running' });
  });

  it('refuses to start while a turn runs', () => {
    expectThrows(
      () => nextTurnOnStart({ turnNumber: 2, turnState: 'running' }),
      'CONFLICT',
      'Error: turn 2 is still running; end it before starting the next.',
    );
  });

  it('ends a running turn, keeping its number', () => {
    expect(nextTurnOnEnd({ turnNumber: 2, turnState: 'running' })).toEqual({ turnNumber: 2, turnState: 'ended' });
  });

  it.each(['none', 'ended'] as const)('refuses to end when no turn runs (%s)', (turnState) => {
    expectThrows(() => nextTurnOnEnd({ turnNumber: 1, turnState }), 'CONFLICT', 'Error: no turn is running; start one first.');
  });
});

describe('standingPlan', () => {
  it('is null with no list', () => {
    expect(standingPlan({ turnNumber: 1 }, null)).toBeNull();
  });

  it('is the list recorded during the current turn', () => {
    expect(standingPlan({ turnNumber: 2 }, update(4, 2))).toEqual({ revision: 4, turnNumber: 2, items: [item('A', 'in_progress')] });
  });

  it('is null when the latest list was recorded in an earlier turn', () => {
    expect(standingPlan({ turnNumber: 3 }, update(4, 2))).toBeNull();
  });
});
