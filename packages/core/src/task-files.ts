// The JSON task files other agent tools keep, parsed and rendered without I/O: sisyphus / oh-my-opencode
// (`<T-id>.json`) and Claude Code (`~/.claude/tasks/<list>/<n>.json` and `.highwatermark`). Files in, validated tasks
// and edges (by the files' ids) out; and back, Claude Code's files byte for byte as Claude Code writes them.
import { z } from 'zod';
import {
  id as boundedText,
  TASK_ACTIVE_FORM_MAX,
  TASK_DESCRIPTION_MAX,
  TASK_EDGES_MAX,
  TASK_OWNER_MAX,
  TASK_SUBJECT_MAX,
  labels,
  metadata as metadataField,
  priority,
  taskCreateInput,
  pathTaskId,
  parentID,
  repoURL,
  shown,
  taskStatus,
  type TaskFileFormat,
} from '@agent-tasks/schema';
import { DomainError } from './errors.ts';
import type { TaskEdge, TaskRecord } from './records.ts';
import { startAtEarliest, topologicalOrder } from './graph.ts';
import { cycleText, edgeOf, mergeMetadata } from './task-graph.ts';

/** Claude Code's own marker of the highest task number it ever gave out (ids are never reused). */
export const HIGH_WATERMARK_FILE = '.highwatermark';

export interface TaskFile {
  name: string;
  content: string;
}

/**
 * One task read from a file: the fields a task record keeps of it; `id` is the file's own id (a sisyphus T-… id, or a
 * Claude Code number, which becomes the task's `#n` in its list).
 */
export interface ParsedTask extends Pick<
  TaskRecord,
  | 'id'
  | 'subject'
  | 'description'
  | 'status'
  | 'activeForm'
  | 'owner'
  | 'metadata'
  | 'repoUrl'
  | 'parentId'
  | 'fileKeyTail'
  | 'priority'
  | 'labels'
> {
  /** The file it came from, to name in refusals. */
  file: string;
  /** The file's threadID, when it has one. */
  threadId: string | null;
}

export interface ParsedTaskFiles {
  /** In creation order: claude by number, sisyphus in the order the files were given. */
  tasks: ParsedTask[];
  /**
   * Blocker → blocked by the files' ids, each once. Sisyphus: blockers before what they block (a topological order).
   * Claude: in the order Claude Code added them, as its files' lists show it (each list appends), so the edges are
   * written back in the same order.
   */
  edges: TaskEdge[];
  /** Claude: the folder's `.highwatermark` (the highest number ever given out), null when it has none. */
  highWatermark: number | null;
}

const invalid = (reason: string) => new DomainError('INVALID_IMPORT', `Error: invalid import: ${reason}`);

const edgeList = (field: string, item: typeof claudeId) =>
  item.array().max(TASK_EDGES_MAX, { error: `Error: invalid input: \`${field}\` may name at most ${TASK_EDGES_MAX} tasks.` });

const claudeId = boundedText.regex(/^[0-9]{1,9}$/, {
  error: (iss) => `Error: invalid input: ${shown(iss.input)} is not a Claude Code task id (a number like "1").`,
});

/** The fields both formats share, with the task contracts' limits and messages; unknown fields are ignored. */
const common = taskCreateInput
  .pick({ subject: true, description: true, activeForm: true, owner: true, metadata: true })
  .strip()
  .extend({ status: taskStatus, threadID: boundedText.optional() });

/** A Claude Code text field as the file has it (a mirror keeps the runtime's text: nothing trimmed), with our limits. */
const verbatim = (field: string, max: number, required: boolean) =>
  z
    .string({
      error: (iss) =>
        iss.input === undefined && field === 'subject'
          ? 'Error: invalid task: `subject` is required: a short imperative line naming the task, such as "Run tests".'
          : `Error: invalid task: \`${field}\` must be a string.`,
    })
    .max(max, {
      error: (iss) =>
        `Error: invalid task: \`${field}\` must be at most ${max} characters (got ${typeof iss.input === 'string' ? [...iss.input].length : 0}).`,
    })
    .refine((text) => !required || text.trim() !== '', { error: `Error: invalid task: \`${field}\` must be a non-empty string.` });

const fileSchemas = {
  sisyphus: common.extend({
    id: pathTaskId,
    blocks: edgeList('blocks', pathTaskId).default([]),
    blockedBy: edgeList('blockedBy', pathTaskId).default([]),
    repoURL: repoURL.optional(),
    parentID: parentID.optional(),
  }),
  claude: z
    .object({
      id: claudeId,
      subject: verbatim('subject', TASK_SUBJECT_MAX, true),
      description: verbatim('description', TASK_DESCRIPTION_MAX, false).default(''),
      activeForm: verbatim('activeForm', TASK_ACTIVE_FORM_MAX, true).optional(),
      owner: verbatim('owner', TASK_OWNER_MAX, true).optional(),
      status: taskStatus,
      blocks: edgeList('blocks', claudeId).default([]),
      blockedBy: edgeList('blockedBy', claudeId).default([]),
      metadata: metadataField.optional(),
      threadID: boundedText.optional(),
    })
    .strip(),
};

/**
 * The fields of a Claude Code task file in the order its reader (a zod object) puts them, which every update writes
 * back; a new task's file has them in this order too.
 */
export const CLAUDE_FIELDS = ['id', 'subject', 'description', 'activeForm', 'owner', 'status', 'blocks', 'blockedBy', 'metadata'];
/** The fields a Claude Code update can add to a task that lacked them: they land after the others, in this order. */
const CLAUDE_TAIL = ['activeForm', 'owner', 'metadata'];

const inClaudeOrder = (keys: readonly string[]) =>
  keys.every((key, i) => i === 0 || CLAUDE_FIELDS.indexOf(keys[i - 1] as string) < CLAUDE_FIELDS.indexOf(key));

/**
 * The fields a Claude Code file lists after the others (comma-separated), or null when it has them in the usual order:
 * the shortest run of appendable fields at the end after which the rest is in the usual order.
 */
function claudeKeyTail(json: Record<string, unknown>): string | null {
  const keys = Object.keys(json).filter((key) => CLAUDE_FIELDS.includes(key) && json[key] !== null && json[key] !== undefined);
  for (let cut = keys.length; cut >= 0; cut--) {
    const tail = keys.slice(cut);
    if (!tail.every((key) => CLAUDE_TAIL.includes(key)) || !inClaudeOrder(keys.slice(0, cut))) continue;
    return tail.length ? tail.join(',') : null;
  }
  return null;
}

interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  expected?: string;
  origin?: string;
  maximum?: number | bigint;
  minimum?: number | bigint;
}

const pathText = (path: readonly PropertyKey[]) =>
  path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`)).join('') || 'file';

/** One zod issue as the reason after "file.json: ", reusing the contracts' own text where it names the field. */
function reasonOf(issue: Issue): string {
  const field = `\`${pathText(issue.path)}\``;
  if (issue.message.startsWith('Error:')) {
    const text = issue.message.replace(/^Error: invalid (?:task|input): /, '');
    return text.includes('`') ? text : `${field}: ${text}`;
  }
  if ((issue.code === 'too_big' || issue.code === 'too_small') && issue.origin === 'string') {
    return `${field} must be ${issue.code === 'too_big' ? `at most ${issue.maximum}` : `at least ${issue.minimum}`} characters.`;
  }
  if (issue.code === 'invalid_type')
    return `${field} must be ${issue.expected === 'array' ? 'an array' : `a ${issue.expected ?? 'value'}`}.`;
  return `${field}: ${issue.message.charAt(0).toLowerCase()}${issue.message.slice(1)}.`;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Optional fields other tools write as null or "" mean "not set". */
function withoutEmpty(json: Record<string, unknown>) {
  const out = { ...json };
  for (const key of ['activeForm', 'owner', 'threadID', 'metadata', 'repoURL', 'parentID']) {
    const v = out[key];
    if (v === null || (typeof v === 'string' && v.trim() === '' && key !== 'metadata')) delete out[key];
  }
  return out;
}

type ReadTask = ParsedTask & { blocks: string[]; blockedBy: string[] };

/**
 * A task file keeps the task's priority and labels in its `metadata` (`priority: "P1"`, `labels: [...]`), so the file
 * stays valid for Claude Code and oh-my-opencode, whose task shapes have no such fields. Read back: valid values become
 * the task's fields; anything else stays plain metadata.
 */
export function fieldsInMetadata(metadata: Record<string, unknown>): Pick<TaskRecord, 'metadata' | 'priority' | 'labels'> {
  const rest = { ...metadata };
  const p = priority.safeParse(rest.priority);
  const l = labels.safeParse(rest.labels);
  if (p.success) delete rest.priority;
  if (l.success) delete rest.labels;
  return { metadata: rest, priority: p.success ? p.data : null, labels: l.success ? l.data : [] };
}

/** The metadata a task file holds: the task's own, with its priority and labels when it has them. */
export const metadataWithFields = (task: TaskRecord): Record<string, unknown> => ({
  ...task.metadata,
  ...(task.priority === null ? {} : { priority: task.priority }),
  ...(task.labels.length ? { labels: task.labels } : {}),
});

/** Reads one file into `byId`: its JSON checked against the format; refused on bad JSON, a bad field or a duplicate id. */
function readTaskFile(format: TaskFileFormat, byId: Map<string, ReadTask>, file: TaskFile) {
  let json: unknown;
  try {
    json = JSON.parse(file.content);
  } catch {
    throw invalid(`${file.name}: not valid JSON.`);
  }
  if (!isObject(json)) throw invalid(`${file.name}: expected a JSON object.`);
  const present = withoutEmpty(json);
  const parsed = fileSchemas[format].safeParse(present);
  if (!parsed.success) throw invalid(`${file.name}: ${reasonOf(parsed.error.issues[0] as Issue)}`);
  const data = parsed.data as z.infer<(typeof fileSchemas)['sisyphus']> & { repoURL?: string; parentID?: string };
  const twin = byId.get(data.id);
  if (twin) throw invalid(`${file.name}: duplicate id "${data.id}" (also in ${twin.file}).`);
  byId.set(data.id, {
    id: data.id,
    file: file.name,
    subject: data.subject,
    description: data.description,
    status: data.status,
    activeForm: data.activeForm ?? null,
    owner: data.owner ?? null,
    ...fieldsInMetadata(data.metadata ? mergeMetadata({}, data.metadata) : {}),
    threadId: data.threadID ?? null,
    repoUrl: data.repoURL ?? null,
    parentId: data.parentID ?? null,
    fileKeyTail: format === 'claude' ? claudeKeyTail(present) : null,
    blocks: data.blocks,
    blockedBy: data.blockedBy,
  });
}

/** Claude Code's `.highwatermark`: a whole number (surrounding white space allowed, as its reader trims it). */
function readHighWatermark(file: TaskFile): number {
  const text = file.content.trim();
  if (!/^[0-9]{1,9}$/.test(text)) throw invalid(`${file.name}: expected a whole number (got ${shown(text)}).`);
  return Number(text);
}

/**
 * The edges in the order Claude Code added them: each task's `blocks` and `blockedBy` list them in the order they
 * were added, so any order that keeps every list's order is that order (ties: first seen, by task number). Lists that
 * contradict each other (not written by Claude Code) are settled by taking the first edge left.
 */
function claudeEdgeOrder(ordered: readonly ReadTask[], edges: Map<string, TaskEdge>): TaskEdge[] {
  const keys = [...edges.keys()];
  const index = new Map(keys.map((k, i) => [k, i]));
  const after: number[][] = keys.map(() => []);
  const waits = keys.map(() => 0);
  const keyOf = (blockerId: string, blockedId: string) => `${blockerId}\n${blockedId}`;
  for (const task of ordered) {
    for (const list of [task.blocks.map((id) => keyOf(task.id, id)), task.blockedBy.map((id) => keyOf(id, task.id))]) {
      const known = [...new Set(list)].flatMap((k) => (index.has(k) ? [index.get(k) as number] : []));
      for (let i = 1; i < known.length; i++) {
        (after[known[i - 1] as number] as number[]).push(known[i] as number);
        waits[known[i] as number] = (waits[known[i] as number] as number) + 1;
      }
    }
  }
  // Kahn's order, the ready edge seen first going first (a binary heap of positions).
  const heap: number[] = [];
  const push = (n: number) => {
    heap.push(n);
    for (let i = heap.length - 1; i > 0;) {
      const up = (i - 1) >> 1;
      if ((heap[up] as number) <= n) break;
      [heap[up], heap[i]] = [n, heap[up] as number];
      i = up;
    }
  };
  const pop = () => {
    const top = heap[0] as number;
    const last = heap.pop() as number;
    if (heap.length) {
      heap[0] = last;
      for (let i = 0; ;) {
        const [l, r] = [2 * i + 1, 2 * i + 2];
        let m = i;
        if (l < heap.length && (heap[l] as number) < (heap[m] as number)) m = l;
        if (r < heap.length && (heap[r] as number) < (heap[m] as number)) m = r;
        if (m === i) break;
        [heap[i], heap[m]] = [heap[m] as number, heap[i] as number];
        i = m;
      }
    }
    return top;
  };
  for (const [i, n] of waits.entries()) if (n === 0) push(i);
  const done = keys.map(() => false);
  const out: TaskEdge[] = [];
  let first = 0;
  while (out.length < keys.length) {
    while (done[first]) first++;
    const next = heap.length ? pop() : first;
    if (done[next]) continue;
    done[next] = true;
    out.push(edges.get(keys[next] as string) as TaskEdge);
    for (const k of after[next] as number[]) {
      waits[k] = (waits[k] as number) - 1;
      if (waits[k] === 0 && !done[k]) push(k);
    }
  }
  return out;
}

/** The read tasks in order and their edges, checked: known ends, no self edge, no cycle (deleted tasks' edges dropped). */
function graphOfFiles(format: TaskFileFormat, byId: Map<string, ReadTask>, highWatermark: number | null): ParsedTaskFiles {
  const ordered = [...byId.values()];
  if (format === 'claude') ordered.sort((a, b) => Number(a.id) - Number(b.id));

  const edges = new Map<string, TaskEdge>();
  for (const task of ordered) {
    for (const [field, other, edgeTo] of [
      ['blocks', task.blocks, (id: string) => ({ blockerId: task.id, blockedId: id })],
      ['blockedBy', task.blockedBy, (id: string) => ({ blockerId: id, blockedId: task.id })],
    ] as const) {
      for (const id of other) {
        const target = byId.get(id);
        if (!target) throw invalid(`${task.file}: ${field} names unknown task "${id}".`);
        if (id === task.id) throw invalid(`${task.file}: task "${id}" cannot depend on itself.`);
        if (task.status === 'deleted' || target.status === 'deleted') continue;
        const edge = edgeTo(id);
        edges.set(`${edge.blockerId}\n${edge.blockedId}`, edge);
      }
    }
  }

  const ids = ordered.map((t) => t.id);
  const found = [...edges.values()];
  const order = topologicalOrder(ids, found.map(edgeOf));
  if ('cycle' in order) {
    const cycle = startAtEarliest(order.cycle, ids);
    throw invalid(`${byId.get(cycle[0] ?? '')?.file}: dependency cycle ${cycleText(cycle)}.`);
  }
  const rank = new Map(order.order.map((id, i) => [id, i]));
  const position = new Map(ids.map((id, i) => [id, i]));
  const sortedEdges =
    format === 'claude'
      ? claudeEdgeOrder(ordered, edges)
      : found.sort(
          (a, b) =>
            (rank.get(a.blockerId) ?? 0) - (rank.get(b.blockerId) ?? 0) ||
            (position.get(a.blockedId) ?? 0) - (position.get(b.blockedId) ?? 0),
        );
  return { tasks: ordered.map(({ blocks, blockedBy, ...task }) => task), edges: sortedEdges, highWatermark };
}

/** Reads one file of the batch: Claude Code's `.highwatermark`, or a task file into `byId`. */
function readFile(format: TaskFileFormat, byId: Map<string, ReadTask>, file: TaskFile, mark: { value: number | null }) {
  if (format === 'claude' && file.name === HIGH_WATERMARK_FILE) mark.value = readHighWatermark(file);
  else readTaskFile(format, byId, file);
}

const taskFilesOf = (format: TaskFileFormat, files: readonly TaskFile[]) =>
  files.filter((f) => format !== 'claude' || f.name !== HIGH_WATERMARK_FILE);

/**
 * Reads a batch of task files: validates each against its format, maps `blocks` and `blockedBy` to edges (both
 * directions describe the same edge, so disagreeing lists are merged), and refuses the whole batch on the first
 * problem: bad JSON or field, duplicate id, an edge to a task not in the batch or to itself, or a cycle. Edges that
 * touch a deleted task are dropped, as deleting a task removes its edges. A Claude Code batch may carry the folder's
 * `.highwatermark`.
 */
export function parseTaskFiles(format: TaskFileFormat, files: readonly TaskFile[]): ParsedTaskFiles {
  if (taskFilesOf(format, files).length === 0) throw invalid('no task files to import.');
  const byId = new Map<string, ReadTask>();
  const mark = { value: null as number | null };
  for (const file of files) readFile(format, byId, file, mark);
  return graphOfFiles(format, byId, mark.value);
}

/** `parseTaskFiles`, letting other work run (`pause`) after every `slice` files: a large batch never holds a server's event loop long. */
export async function parseTaskFilesInSlices(
  format: TaskFileFormat,
  files: readonly TaskFile[],
  pause: () => Promise<void>,
  slice = 100,
): Promise<ParsedTaskFiles> {
  if (taskFilesOf(format, files).length === 0) throw invalid('no task files to import.');
  const byId = new Map<string, ReadTask>();
  const mark = { value: null as number | null };
  for (const [i, file] of files.entries()) {
    if (i > 0 && i % slice === 0) await pause();
    readFile(format, byId, file, mark);
  }
  await pause();
  return graphOfFiles(format, byId, mark.value);
}

/** The same JSON value with every object's keys in order, so equal metadata always renders to the same bytes. */
function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sortedKeys((value as Record<string, unknown>)[k])]),
  );
}

/** The task's Claude Code fields in the order its file lists them: the usual order, the appended ones last. */
function claudeBody(task: TaskRecord, id: string, blocks: string[], blockedBy: string[]) {
  const values: Record<string, unknown> = {
    id,
    subject: task.subject,
    description: task.description,
    activeForm: task.activeForm ?? undefined,
    owner: task.owner ?? undefined,
    status: task.status,
    blocks,
    blockedBy,
    metadata: Object.keys(metadataWithFields(task)).length ? metadataWithFields(task) : undefined,
  };
  const tail = (task.fileKeyTail ?? '').split(',').filter((key) => CLAUDE_TAIL.includes(key));
  const keys = [...CLAUDE_FIELDS.filter((key) => !tail.includes(key)), ...tail];
  return Object.fromEntries(keys.filter((key) => values[key] !== undefined).map((key) => [key, values[key]]));
}

/**
 * Claude Code's `.highwatermark` for a list whose numbers run up to `taskSeq`: the highest number that has no live
 * task (Claude Code writes it when it deletes a task; its next task is numbered after it), or none when every number
 * has one.
 */
export function highWatermarkOf(tasks: readonly TaskRecord[], taskSeq: number): number | null {
  const live = new Set(tasks.filter((t) => t.status !== 'deleted').map((t) => t.seq));
  for (let n = taskSeq; n >= 1; n--) if (!live.has(n)) return n;
  return null;
}

/**
 * Writes a list's tasks as files of `format`, in creation order. Sisyphus keeps the T-… ids (`<id>.json`, deleted
 * tasks too), edges in creation order and metadata keys sorted, so two exports of the same graph are byte-identical.
 * Claude writes each live task as Claude Code does: `<n>.json` named by its `#n`, edges by those numbers in the order
 * they were added, `JSON.stringify(task, null, 2)` with no newline after it; a deleted task has no file and no edge,
 * and `.highwatermark` holds the highest number without a live task (given the list's task counter `taskSeq`). Edges
 * to tasks not given are left out.
 */
export function renderTaskFiles(
  format: TaskFileFormat,
  tasks: readonly TaskRecord[],
  edges: readonly TaskEdge[],
  taskSeq = Math.max(0, ...tasks.map((t) => t.seq)),
): TaskFile[] {
  const ordered = [...tasks].sort((a, b) => a.seq - b.seq).filter((t) => format === 'sisyphus' || t.status !== 'deleted');
  const fileId = new Map(ordered.map((t) => [t.id, format === 'claude' ? String(t.seq) : t.id]));
  const position = new Map(ordered.map((t, i) => [t.id, i]));
  const byPosition = (a: string, b: string) => (position.get(a) ?? 0) - (position.get(b) ?? 0);
  const named = (ids: string[] | undefined) =>
    format === 'claude'
      ? (ids ?? []).map((id) => fileId.get(id) as string)
      : [...new Set(ids ?? [])].sort(byPosition).map((id) => fileId.get(id) as string);
  const blocksOf = new Map<string, string[]>();
  const blockedByOf = new Map<string, string[]>();
  for (const { blockerId, blockedId } of edges) {
    if (!fileId.has(blockerId) || !fileId.has(blockedId)) continue;
    blocksOf
      .set(blockerId, blocksOf.get(blockerId) ?? [])
      .get(blockerId)
      ?.push(blockedId);
    blockedByOf
      .set(blockedId, blockedByOf.get(blockedId) ?? [])
      .get(blockedId)
      ?.push(blockerId);
  }
  const files = ordered.map((task) => {
    const id = fileId.get(task.id) as string;
    const blocks = named(blocksOf.get(task.id));
    const blockedBy = named(blockedByOf.get(task.id));
    if (format === 'claude') return { name: `${id}.json`, content: JSON.stringify(claudeBody(task, id, blocks, blockedBy), null, 2) };
    const body = {
      id,
      subject: task.subject,
      description: task.description,
      status: task.status,
      ...(task.activeForm === null ? {} : { activeForm: task.activeForm }),
      blocks,
      blockedBy,
      ...(task.owner === null ? {} : { owner: task.owner }),
      ...(Object.keys(metadataWithFields(task)).length ? { metadata: sortedKeys(metadataWithFields(task)) } : {}),
      ...(task.repoUrl === null ? {} : { repoURL: task.repoUrl }),
      ...(task.parentId === null ? {} : { parentID: task.parentId }),
      threadID: task.sessionId,
    };
    return { name: `${id}.json`, content: `${JSON.stringify(body, null, 2)}\n` };
  });
  const mark = format === 'claude' ? highWatermarkOf(tasks, taskSeq) : null;
  return mark === null ? files : [...files, { name: HIGH_WATERMARK_FILE, content: String(mark) }];
}
