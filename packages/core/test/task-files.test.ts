// Unit tests of the pure task-file reader and writer: sisyphus and Claude Code formats, exact refusals, edges, round trips.
import { describe, expect, it } from 'vitest';
import { DomainError, type TaskEdge, type TaskRecord, taskFiles } from '../src/index.ts';
import { taskRecord } from './record-builders.ts';

const { parseTaskFiles, renderTaskFiles } = taskFiles;
type Files = Parameters<typeof parseTaskFiles>[1];

const file = (name: string, body: unknown) => ({ name, content: typeof body === 'string' ? body : JSON.stringify(body) });
const claude = (id: string, fields: Record<string, unknown> = {}) =>
  file(`${id}.json`, { id, subject: `Task ${id}`, description: '', status: 'pending', blocks: [], blockedBy: [], ...fields });
const sisyphus = (id: string, fields: Record<string, unknown> = {}) =>
  file(`${id}.json`, {
    id,
    subject: `Task ${id}`,
    description: '',
    status: 'pending',
    blocks: [],
    blockedBy: [],
    threadID: 'ses_1',
    ...fields,
  });

/** The refusal text of a parse that must fail (and fail as INVALID_IMPORT). */
function refusal(format: 'claude' | 'sisyphus', files: Files): string {
  try {
    parseTaskFiles(format, files);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('INVALID_IMPORT');
    return (error as DomainError).message;
  }
  return expect.fail('expected the import to be refused');
}

const record = (id: string, seq: number, fields: Partial<TaskRecord> = {}) =>
  taskRecord(id, seq, { subject: `Subject ${id}`, ...fields }, new Date(0));

describe('parseTaskFiles: claude', () => {
  it("reads every field, orders tasks by number and turns blocks/blockedBy into edges by the files' ids", () => {
    const parsed = parseTaskFiles('claude', [
      claude('10', { blockedBy: ['2'] }),
      claude('2', {
        subject: ' Build backend ',
        activeForm: 'Building backend',
        owner: 'alice',
        metadata: { p: 1 },
        status: 'in_progress',
      }),
      claude('1', { blocks: ['10'], description: 'front' }),
    ]);
    expect(parsed.tasks.map((t) => t.id)).toEqual(['1', '2', '10']);
    // Claude Code's text as the file has it (nothing trimmed); fields after `blockedBy` are the file's appended tail.
    expect(parsed.tasks[1]).toEqual({
      id: '2',
      file: '2.json',
      subject: ' Build backend ',
      description: '',
      status: 'in_progress',
      activeForm: 'Building backend',
      owner: 'alice',
      metadata: { p: 1 },
      priority: null,
      labels: [],
      threadId: null,
      repoUrl: null,
      parentId: null,
      fileKeyTail: 'activeForm,owner,metadata',
    });
    expect(parsed.highWatermark).toBeNull();
    expect(parsed.tasks[0]).toMatchObject({ description: 'front', activeForm: null, owner: null, metadata: {} });
    expect(parsed.edges).toEqual([
      { blockerId: '1', blockedId: '10' },
      { blockerId: '2', blockedId: '10' },
    ]);
  });

  it('merges blocks and blockedBy that disagree: either side names the same edge, and each edge counts once', () => {
    const parsed = parseTaskFiles('claude', [claude('1', { blocks: ['2'] }), claude('2', { blockedBy: ['1', '3'] }), claude('3')]);
    expect(parsed.edges).toEqual([
      { blockerId: '1', blockedId: '2' },
      { blockerId: '3', blockedId: '2' },
    ]);
  });

  it('keeps the edges in the order Claude Code added them: every list of every file keeps its order', () => {
    // 3 was blocked by 2, then by 1; 1 blocked 3 before it blocked 2 (each TaskUpdate appends to both ends' lists).
    const parsed = parseTaskFiles('claude', [
      claude('1', { blocks: ['3', '2'] }),
      claude('2', { blocks: ['3'], blockedBy: ['1'] }),
      claude('3', { blockedBy: ['2', '1'] }),
    ]);
    expect(parsed.edges).toEqual([
      { blockerId: '2', blockedId: '3' },
      { blockerId: '1', blockedId: '3' },
      { blockerId: '1', blockedId: '2' },
    ]);
  });

  it("reads the folder's .highwatermark, and refuses one that is not a whole number", () => {
    expect(parseTaskFiles('claude', [claude('1'), file('.highwatermark', '7')]).highWatermark).toBe(7);
    expect(refusal('claude', [claude('1'), file('.highwatermark', 'seven')])).toBe(
      'Error: invalid import: .highwatermark: expected a whole number (got "seven").',
    );
    expect(refusal('claude', [file('.highwatermark', '3')])).toBe('Error: invalid import: no task files to import.');
  });

  it("finds the fields a Claude Code update appended (its layout), none for a file in Claude Code's usual order", () => {
    const raw = (id: string, body: Record<string, unknown>) => file(`${id}.json`, { id, ...body });
    const [created, owned, normal] = parseTaskFiles('claude', [
      raw('1', { subject: 'a', description: '', activeForm: 'A-ing', status: 'pending', blocks: [], blockedBy: [], metadata: { k: 1 } }),
      raw('2', { subject: 'b', description: '', status: 'pending', blocks: [], blockedBy: [], metadata: { k: 1 }, owner: 'bob' }),
      raw('3', { subject: 'c', description: '', owner: 'bob', status: 'pending', blocks: [], blockedBy: [] }),
    ]).tasks;
    expect([created?.fileKeyTail, owned?.fileKeyTail, normal?.fileKeyTail]).toEqual([null, 'owner', null]);
  });

  it('treats null or empty optional fields as not set and ignores fields it does not know', () => {
    const parsed = parseTaskFiles('claude', [claude('1', { activeForm: '', owner: null, metadata: null, extra: true })]);
    expect(parsed.tasks[0]).toMatchObject({ activeForm: null, owner: null, metadata: {} });
  });

  it('drops edges that touch a deleted task, as deleting a task removes its edges', () => {
    const parsed = parseTaskFiles('claude', [
      claude('1', { blocks: ['2'], status: 'deleted' }),
      claude('2', { blocks: ['3'] }),
      claude('3'),
    ]);
    expect(parsed.tasks.map((t) => t.status)).toEqual(['deleted', 'pending', 'pending']);
    expect(parsed.edges).toEqual([{ blockerId: '2', blockedId: '3' }]);
  });
});

describe('parseTaskFiles: sisyphus', () => {
  it('keeps the T-… ids and the threadID, in the order the files were given', () => {
    const parsed = parseTaskFiles('sisyphus', [sisyphus('T-b', { blockedBy: ['T-a'] }), sisyphus('T-a', { threadID: 'ses_9' })]);
    expect(parsed.tasks.map((t) => [t.id, t.threadId])).toEqual([
      ['T-b', 'ses_1'],
      ['T-a', 'ses_9'],
    ]);
    expect(parsed.edges).toEqual([{ blockerId: 'T-a', blockedId: 'T-b' }]);
  });

  it('orders edges blockers first, whatever order the files name them in', () => {
    const parsed = parseTaskFiles('sisyphus', [
      sisyphus('T-1', { blockedBy: ['T-2'] }),
      sisyphus('T-2', { blockedBy: ['T-3'] }),
      sisyphus('T-3'),
    ]);
    expect(parsed.edges).toEqual([
      { blockerId: 'T-3', blockedId: 'T-2' },
      { blockerId: 'T-2', blockedId: 'T-1' },
    ]);
  });

  it("ranks blockers in the stable order: a task's blockers keep creation order when nothing forces otherwise", () => {
    // 4 waits on 2 and 3; 2 waits on 1. A first-come queue would rank 3 before 2 (3 is free from the start).
    const parsed = parseTaskFiles('sisyphus', [
      sisyphus('T-1'),
      sisyphus('T-2', { blockedBy: ['T-1'] }),
      sisyphus('T-3'),
      sisyphus('T-4', { blockedBy: ['T-3', 'T-2'] }),
    ]);
    expect(parsed.edges).toEqual([
      { blockerId: 'T-1', blockedId: 'T-2' },
      { blockerId: 'T-2', blockedId: 'T-4' },
      { blockerId: 'T-3', blockedId: 'T-4' },
    ]);
  });

  it("keeps oh-my-opencode's repoURL and parentID", () => {
    const [task] = parseTaskFiles('sisyphus', [sisyphus('T-a', { repoURL: 'https://github.com/o/r', parentID: 'T-p' })]).tasks;
    expect([task?.repoUrl, task?.parentId]).toEqual(['https://github.com/o/r', 'T-p']);
  });

  it('reads a file without a threadID as having none', () => {
    expect(parseTaskFiles('sisyphus', [sisyphus('T-a', { threadID: undefined })]).tasks[0]?.threadId).toBeNull();
  });
});

describe('parseTaskFiles refusals: one exact line naming the file and the reason', () => {
  it.each<[string, 'claude' | 'sisyphus', Files, string]>([
    ['an empty batch', 'claude', [], 'Error: invalid import: no task files to import.'],
    ['bad JSON', 'claude', [claude('1'), file('2.json', '{"id": "2",')], 'Error: invalid import: 2.json: not valid JSON.'],
    ['a JSON array', 'claude', [file('1.json', '[]')], 'Error: invalid import: 1.json: expected a JSON object.'],
    [
      'an empty subject',
      'claude',
      [claude('3', { subject: '  ' })],
      'Error: invalid import: 3.json: `subject` must be a non-empty string.',
    ],
    [
      'a missing subject',
      'claude',
      [claude('3', { subject: undefined })],
      'Error: invalid import: 3.json: `subject` is required: a short imperative line naming the task, such as "Run tests".',
    ],
    [
      'a subject over the limit',
      'claude',
      [claude('3', { subject: 'x'.repeat(201) })],
      'Error: invalid import: 3.json: `subject` must be at most 200 characters (got 201).',
    ],
    [
      'an unknown status',
      'claude',
      [claude('3', { status: 'done' })],
      'Error: invalid import: 3.json: `status` must be one of pending, in_progress, completed, deleted (got "done").',
    ],
    [
      'a missing status',
      'claude',
      [claude('3', { status: undefined })],
      'Error: invalid import: 3.json: `status` must be one of pending, in_progress, completed, deleted (got nothing).',
    ],
    [
      'metadata that is not an object',
      'claude',
      [claude('3', { metadata: [1] })],
      'Error: invalid import: 3.json: `metadata` must be a JSON object.',
    ],
    ['an owner that is not a string', 'claude', [claude('3', { owner: 7 })], 'Error: invalid import: 3.json: `owner` must be a string.'],
    [
      'a numeric claude id',
      'claude',
      [file('3.json', { id: 3, subject: 'x', status: 'pending' })],
      'Error: invalid import: 3.json: `id` must be a string.',
    ],
    [
      'a claude id that is not a number',
      'claude',
      [claude('T-1')],
      'Error: invalid import: T-1.json: `id`: "T-1" is not a Claude Code task id (a number like "1").',
    ],
    ['blocks that is not an array', 'claude', [claude('3', { blocks: '1' })], 'Error: invalid import: 3.json: `blocks` must be an array.'],
    [
      'blockedBy naming an unknown task',
      'claude',
      [claude('1'), claude('3', { blockedBy: ['7'] })],
      'Error: invalid import: 3.json: blockedBy names unknown task "7".',
    ],
    [
      'blocks naming an unknown task',
      'claude',
      [claude('3', { blocks: ['1'] })],
      'Error: invalid import: 3.json: blocks names unknown task "1".',
    ],
    [
      'a task blocking itself',
      'claude',
      [claude('3', { blocks: ['3'] })],
      'Error: invalid import: 3.json: task "3" cannot depend on itself.',
    ],
    [
      'a duplicate id',
      'claude',
      [claude('2'), file('copy.json', { id: '2', subject: 'x', status: 'pending' })],
      'Error: invalid import: copy.json: duplicate id "2" (also in 2.json).',
    ],
    [
      'a cycle of two',
      'claude',
      [claude('1', { blocks: ['2'] }), claude('2', { blocks: ['1'] })],
      'Error: invalid import: 1.json: dependency cycle 1 → 2 → 1.',
    ],
    [
      'a cycle met through blockedBy, behind a task that waits on it',
      'claude',
      [
        claude('1', { blockedBy: ['3'] }),
        claude('2', { blockedBy: ['4'] }),
        claude('3', { blockedBy: ['2'] }),
        claude('4', { blockedBy: ['3'] }),
      ],
      'Error: invalid import: 2.json: dependency cycle 2 → 3 → 4 → 2.',
    ],
    [
      'a sisyphus id that is not T-…',
      'sisyphus',
      [sisyphus('task-1')],
      'Error: invalid import: task-1.json: `id`: "task-1" is not a task id (T-…).',
    ],
    [
      'a sisyphus edge that is not a task id',
      'sisyphus',
      [sisyphus('T-a', { blockedBy: ['1'] })],
      'Error: invalid import: T-a.json: `blockedBy[0]`: "1" is not a task id (T-…).',
    ],
    [
      'a sisyphus cycle',
      'sisyphus',
      [sisyphus('T-a', { blocks: ['T-b'] }), sisyphus('T-b', { blockedBy: ['T-a'], blocks: ['T-a'] })],
      'Error: invalid import: T-a.json: dependency cycle T-a → T-b → T-a.',
    ],
    [
      'a threadID over 100 characters',
      'sisyphus',
      [sisyphus('T-a', { threadID: 's'.repeat(101) })],
      'Error: invalid import: T-a.json: `threadID` must be at most 100 characters.',
    ],
  ])('refuses %s', (_, format, files, text) => {
    expect(refusal(format, files)).toBe(text);
  });

  it('refuses a list of more than 100 edges in one field', () => {
    const many = Array.from({ length: 101 }, (_, i) => String(i + 2));
    expect(refusal('claude', [claude('1', { blocks: many })])).toBe('Error: invalid import: 1.json: `blocks` may name at most 100 tasks.');
  });
});

describe('renderTaskFiles', () => {
  const tasks = [
    record('T-c', 3, { subject: 'Deploy', status: 'deleted' }),
    record('T-a', 1, { subject: 'Build', activeForm: 'Building', owner: 'alice', metadata: { k: 'v' }, status: 'completed' }),
    record('T-b', 2, { subject: 'Test', description: 'all of them', status: 'in_progress' }),
  ];
  const edges: TaskEdge[] = [{ blockerId: 'T-a', blockedId: 'T-b' }];

  it('writes each live task as Claude Code does: <#n>.json, edges by number, its layout, no newline; .highwatermark', () => {
    const files = renderTaskFiles('claude', tasks, edges, 3);
    // #3 is deleted: no file, and 3 is the highest number without a live task.
    expect(files.map((f) => f.name)).toEqual(['1.json', '2.json', '.highwatermark']);
    expect(files[0]?.content).toBe(
      JSON.stringify(
        {
          id: '1',
          subject: 'Build',
          description: '',
          activeForm: 'Building',
          owner: 'alice',
          status: 'completed',
          blocks: ['2'],
          blockedBy: [],
          metadata: { k: 'v' },
        },
        null,
        2,
      ),
    );
    expect(files[1]?.content).toBe(
      JSON.stringify(
        { id: '2', subject: 'Test', description: 'all of them', status: 'in_progress', blocks: [], blockedBy: ['1'] },
        null,
        2,
      ),
    );
    expect(files[2]?.content).toBe('3');
    const appended = renderTaskFiles('claude', [record('T-a', 4, { owner: 'bob', fileKeyTail: 'owner' })], [], 4);
    expect(Object.keys(JSON.parse(appended[0]?.content ?? ''))).toEqual([
      'id',
      'subject',
      'description',
      'status',
      'blocks',
      'blockedBy',
      'owner',
    ]);
    expect(appended.map((f) => [f.name, f.content.slice(-1)])).toEqual([
      ['4.json', '}'],
      ['.highwatermark', '3'],
    ]);
  });

  it('keeps sisyphus ids and the threadID, file named after the id', () => {
    const files = renderTaskFiles('sisyphus', tasks, edges);
    expect(files.map((f) => f.name)).toEqual(['T-a.json', 'T-b.json', 'T-c.json']);
    expect(Object.keys(JSON.parse(files[0]?.content ?? ''))).toEqual([
      'id',
      'subject',
      'description',
      'status',
      'activeForm',
      'blocks',
      'blockedBy',
      'owner',
      'metadata',
      'threadID',
    ]);
    expect(JSON.parse(files[2]?.content ?? '')).toEqual({
      id: 'T-c',
      subject: 'Deploy',
      description: '',
      status: 'deleted',
      blocks: [],
      blockedBy: [],
      threadID: 'ses_1',
    });
    expect(files.every((f) => f.content.endsWith('}\n') && f.content.includes('\n  "id": '))).toBe(true);
  });

  it('leaves out edges to tasks it was not given', () => {
    const files = renderTaskFiles('claude', [record('T-a', 1)], [{ blockerId: 'T-a', blockedId: 'T-z' }]);
    expect(JSON.parse(files[0]?.content ?? '').blocks).toEqual([]);
  });

  it.each(['claude', 'sisyphus'] as const)('round trip %s: render then parse gives back the tasks and edges', (format) => {
    const graph = [
      record('T-1', 1, { subject: 'Build frontend' }),
      record('T-2', 2, { subject: 'Build backend', owner: 'bob', status: 'in_progress', activeForm: 'Building backend' }),
      record('T-3', 3, { subject: 'Integration tests', metadata: { suite: 'e2e' } }),
      record('T-4', 4, { subject: 'Deploy', description: 'to prod' }),
    ];
    const graphEdges: TaskEdge[] = [
      { blockerId: 'T-1', blockedId: 'T-3' },
      { blockerId: 'T-2', blockedId: 'T-3' },
      { blockerId: 'T-3', blockedId: 'T-4' },
    ];
    const parsed = parseTaskFiles(format, renderTaskFiles(format, graph, graphEdges));
    const idOf = new Map(graph.map((t) => [format === 'claude' ? String(t.seq) : t.id, t.id]));
    expect(parsed.tasks.map((t) => idOf.get(t.id))).toEqual(['T-1', 'T-2', 'T-3', 'T-4']);
    expect(
      parsed.tasks.map(({ subject, description, status, activeForm, owner, metadata }) => ({
        subject,
        description,
        status,
        activeForm,
        owner,
        metadata,
      })),
    ).toEqual(
      graph.map(({ subject, description, status, activeForm, owner, metadata }) => ({
        subject,
        description,
        status,
        activeForm,
        owner,
        metadata,
      })),
    );
    expect(parsed.tasks.map((t) => t.threadId)).toEqual(graph.map(() => (format === 'sisyphus' ? 'ses_1' : null)));
    expect(parsed.edges.map((e) => ({ blockerId: idOf.get(e.blockerId), blockedId: idOf.get(e.blockedId) }))).toEqual(graphEdges);
  });
});
