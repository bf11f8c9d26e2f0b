// Unit tests of seed 000's pure todo rules: trimming, exact refusals, the one-active rule, counts, answer text, diffs, stale text.
import { describe, expect, it } from 'vitest';
import { NON_EMPTY_CONTENT_ERROR } from '@agent-tasks/schema';
import {
  NO_OWNING_SESSION_ERROR,
  checkOneActive,
  countTodos,
  diffTodos,
  normalizeTodos,
  staleRevisionError,
  todoAnswer,
} from '../src/index.ts';
import { expectThrows, item } from './fixtures.ts';

describe('exact texts of record (seed 000)', () => {
  it('uses the spec texts for empty content and for a run with no session', () => {
    expect(NON_EMPTY_CONTENT_ERROR).toBe('Error: invalid todo: `content` must be a non-empty string.');
    expect(NO_OWNING_SESSION_ERROR).toBe('Error: todo_write requires an owning agent session before anything is written.');
  });
});

describe('normalizeTodos', () => {
  it('trims the text of every item and keeps order and states', () => {
    const out = normalizeTodos([item('  Write code ', 'completed'), item('\tRun tests\n', 'in_progress'), item('Ship', 'pending')]);
    expect(out).toEqual([item('Write code', 'completed'), item('Run tests', 'in_progress'), item('Ship', 'pending')]);
  });

  it('keeps inner whitespace as it is', () => {
    expect(normalizeTodos([item('  Run  the   tests  ')])).toEqual([item('Run  the   tests')]);
  });

  it('does not mutate its input', () => {
    const input = [item(' Run tests ')];
    normalizeTodos(input);
    expect(input).toEqual([item(' Run tests ')]);
  });

  it('accepts an empty list (it clears the list)', () => {
    expect(normalizeTodos([])).toEqual([]);
  });

  it.each(['', ' ', '   \t\n '])('refuses text that is empty once trimmed (%j)', (content) => {
    expectThrows(
      () => normalizeTodos([item('Plan'), item(content)]),
      'INVALID_TODOS',
      'Error: invalid todo: `content` must be a non-empty string. At `todos[1].content`.',
    );
  });

  it('refuses the same text twice, comparing after trimming, naming the trimmed text', () => {
    expectThrows(
      () => normalizeTodos([item('Run tests'), item(' Run tests ', 'completed')]),
      'INVALID_TODOS',
      'Error: invalid todos: duplicate content "Run tests"',
    );
  });

  it('refuses exact duplicates whatever their states', () => {
    expectThrows(
      () => normalizeTodos([item('Deploy', 'pending'), item('Build'), item('Deploy', 'completed')]),
      'INVALID_TODOS',
      'Error: invalid todos: duplicate content "Deploy"',
    );
  });

  it('treats texts that differ only in case as different tasks', () => {
    expect(normalizeTodos([item('Run tests'), item('run tests')])).toHaveLength(2);
  });

  it('reports the first problem in list order', () => {
    expectThrows(
      () => normalizeTodos([item(' '), item('A'), item('A')]),
      'INVALID_TODOS',
      `${NON_EMPTY_CONTENT_ERROR} At \`todos[0].content\`.`,
    );
    expectThrows(() => normalizeTodos([item('A'), item('A'), item(' ')]), 'INVALID_TODOS', 'Error: invalid todos: duplicate content "A"');
  });
});

describe('checkOneActive', () => {
  it('with the rule on, refuses two in_progress items with the exact text and count', () => {
    expectThrows(
      () => checkOneActive([item('A', 'in_progress'), item('B', 'in_progress'), item('C')], true),
      'INVALID_TODOS',
      'Error: invalid todos: at most one task may be in_progress (got 2)',
    );
  });

  it('with the rule on, reports the actual number in progress', () => {
    expectThrows(
      () => checkOneActive([item('A', 'in_progress'), item('B', 'in_progress'), item('C', 'in_progress')], true),
      'INVALID_TODOS',
      'Error: invalid todos: at most one task may be in_progress (got 3)',
    );
  });

  it('with the rule on, allows zero or one in_progress item', () => {
    expect(() => checkOneActive([], true)).not.toThrow();
    expect(() => checkOneActive([item('A', 'completed'), item('B')], true)).not.toThrow();
    expect(() => checkOneActive([item('A', 'in_progress'), item('B'), item('C', 'completed')], true)).not.toThrow();
  });

  it('with the rule off, allows several in_progress items', () => {
    expect(() => checkOneActive([item('A', 'in_progress'), item('B', 'in_progress'), item('C', 'in_progress')], false)).not.toThrow();
  });
});

describe('countTodos and todoAnswer', () => {
  it('counts the whole list by state', () => {
    const items = [item('A'), item('B'), item('C', 'in_progress'), item('D', 'completed'), item('E', 'completed'), item('F', 'completed')];
    expect(countTodos(items)).toEqual({ pending: 2, inProgress: 1, completed: 3 });
  });

  it('counts an empty list as all zeros', () => {
    expect(countTodos([])).toEqual({ pending: 0, inProgress: 0, completed: 0 });
  });

  it('renders the answer text with the counts', () => {
    expect(todoAnswer({ pending: 2, inProgress: 1, completed: 3 })).toBe('Updated todo list: 2 pending, 1 in progress, 3 completed');
    expect(todoAnswer(countTodos([]))).toBe('Updated todo list: 0 pending, 0 in progress, 0 completed');
  });
});

describe('diffTodos', () => {
  it('against nothing, every item is added', () => {
    expect(diffTodos([], [item('A'), item('B', 'in_progress')])).toEqual({ added: ['A', 'B'], removed: [], statusChanged: [] });
  });

  it('reports added, removed and state changes by text', () => {
    const before = [item('A', 'in_progress'), item('B'), item('C')];
    const after = [item('A', 'completed'), item('B'), item('D', 'in_progress')];
    expect(diffTodos(before, after)).toEqual({
      added: ['D'],
      removed: ['C'],
      statusChanged: [{ content: 'A', from: 'in_progress', to: 'completed' }],
    });
  });

  it('an identical list changes nothing, whatever the order', () => {
    expect(diffTodos([item('A'), item('B', 'completed')], [item('B', 'completed'), item('A')])).toEqual({
      added: [],
      removed: [],
      statusChanged: [],
    });
  });

  it('clearing the list removes every item', () => {
    expect(diffTodos([item('A'), item('B')], [])).toEqual({ added: [], removed: ['A', 'B'], statusChanged: [] });
  });

  it('a renamed item reads as one removed and one added', () => {
    expect(diffTodos([item('Run tests')], [item('Run all tests')])).toEqual({
      added: ['Run all tests'],
      removed: ['Run tests'],
      statusChanged: [],
    });
  });
});

describe('staleRevisionError', () => {
  it('names both revisions and carries the current one in details', () => {
    const e = staleRevisionError(2, 5);
    expect(e.code).toBe('STALE_REVISION');
    expect(e.message).toBe(
      'Error: stale revision: this update was based on revision 2, but the list is at revision 5; read the list again and send the whole list.',
    );
    expect(e.details).toEqual({ currentRevision: 5 });
  });
});
