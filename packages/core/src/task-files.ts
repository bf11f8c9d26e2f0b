// The JSON task files other agent tools keep, parsed and rendered without I/O: sisyphus (`.sisyphus/tasks/<T-id>.json`)
// and Claude Code (`~/.claude/tasks/<list>/<n>.json`). Files in, validated tasks and edges (by the files' ids) out; and back.
import {
  id as boundedText,
  TASK_EDGES_MAX,
  taskCreateInput,
  pathTaskId,
  shown,
  taskStatus,
  type TaskFileFormat,
} from '@agent-tasks/schema';
import { DomainError } from './errors.ts';
import type { TaskEdge, TaskRecord } from './records.ts';
import { startAtEarliest, topologicalOrder } from './graph.ts';
import { cycleText, edgeOf, mergeMetadata } from './task-graph.ts';

export interface TaskFile {
  name: string;
  content: string;
}

/**
 * One task read from a file: the fields a task record keeps of it; `id` is the file's own id (kept for sisyphus,
 * mapped to a new T-… id for claude).
 */
export interface ParsedTask extends Pick<TaskRecord, 'id' | 'subject' | 'description' | 'status' | 'activeForm' | 'owner' | 'metadata'> {
  /** The file it came from, to name in refusals. */
  file: string;
  /** The file's threadID, when it has one. */
  threadId: string | null;
}

export interface ParsedTaskFiles {
  /** In creation order: claude by number, sisyphus in the order the files were given. */
  tasks: ParsedTask[];
  /** Blocker → blocked by the files' ids, each once, blockers before what they block (a topological order). */
  edges: TaskEdge[];
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

const fileSchemas = {
  sisyphus: common.extend({
    id: pathTaskId,
    blocks: edgeList('blocks', pathTaskId).default([]),
    blockedBy: edgeList('blockedBy', pathTaskId).default([]),
  }),
  claude: common.extend({
    id: claudeId,
    blocks: edgeList('blocks', claudeId).default([]),
    blockedBy: edgeList('blockedBy', claudeId).default([]),
  }),
};

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
  for (const key of ['activeForm', 'owner', 'threadID', 'metadata']) {
    const v = out[key];
    if (v === null || (typeof v === 'string' && v.trim() === '' && key !== 'metadata')) delete out[key];
  }
  return out;
}

type ReadTask = ParsedTask & { blocks: string[]; blockedBy: string[] };

/** Reads one file into `byId`: its JSON checked against the format; refused on bad JSON, a bad field or a duplicate id. */
function readTaskFile(format: TaskFileFormat, byId: Map<string, ReadTask>, file: TaskFile) {
  let json: unknown;
  try {
    json = JSON.parse(file.content);
  } catch {
    throw invalid(`${file.name}: not valid JSON.`);
  }
  if (!isObject(json)) throw invalid(`${file.name}: expected a JSON object.`);
  const parsed = fileSchemas[format].safeParse(withoutEmpty(json));
  if (!parsed.success) throw invalid(`${file.name}: ${reasonOf(parsed.error.issues[0] as Issue)}`);
  const data = parsed.data;
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
    metadata: data.metadata ? mergeMetadata({}, data.metadata) : {},
    threadId: data.threadID ?? null,
    blocks: data.blocks,
    blockedBy: data.blockedBy,
  });
}

/** The read tasks in order and their edges, checked: known ends, no self edge, no cycle (deleted tasks' edges dropped). */
function graphOfFiles(format: TaskFileFormat, byId: Map<string, ReadTask>): ParsedTaskFiles {
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
  const sortedEdges = found.sort(
    (a, b) =>
      (rank.get(a.blockerId) ?? 0) - (rank.get(b.blockerId) ?? 0) || (position.get(a.blockedId) ?? 0) - (position.get(b.blockedId) ?? 0),
  );
  return { tasks: ordered.map(({ blocks, blockedBy, ...task }) => task), edges: sortedEdges };
}

/**
 * Reads a batch of task files: validates each against its format, maps `blocks` and `blockedBy` to edges (both
 * directions describe the same edge, so disagreeing lists are merged), and refuses the whole batch on the first
 * problem: bad JSON or field, duplicate id, an edge to a task not in the batch or to itself, or a cycle. Edges that
 * touch a deleted task are dropped, as deleting a task removes its edges.
 */
export function parseTaskFiles(format: TaskFileFormat, files: readonly TaskFile[]): ParsedTaskFiles {
  if (files.length === 0) throw invalid('no task files to import.');
  const byId = new Map<string, ReadTask>();
  for (const file of files) readTaskFile(format, byId, file);
  return graphOfFiles(format, byId);
}

/** `parseTaskFiles`, letting other work run (`pause`) after every `slice` files: a large batch never holds a server's event loop long. */
export async function parseTaskFilesInSlices(
  format: TaskFileFormat,
  files: readonly TaskFile[],
  pause: () => Promise<void>,
  slice = 100,
): Promise<ParsedTaskFiles> {
  if (files.length === 0) throw invalid('no task files to import.');
  const byId = new Map<string, ReadTask>();
  for (const [i, file] of files.entries()) {
    if (i > 0 && i % slice === 0) await pause();
    readTaskFile(format, byId, file);
  }
  await pause();
  return graphOfFiles(format, byId);
}

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

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

/**
 * Writes a list's tasks as files of `format`, in creation order: sisyphus keeps the T-… ids (`<id>.json`), claude
 * numbers the tasks 1..n (`<n>.json`) and names edges by those numbers. Edges to tasks not given are left out. Edges
 * are listed in creation order and metadata keys sorted, so two exports of the same graph are byte-identical.
 */
export function renderTaskFiles(format: TaskFileFormat, tasks: readonly TaskRecord[], edges: readonly TaskEdge[]): TaskFile[] {
  const ordered = [...tasks].sort((a, b) => a.seq - b.seq);
  const fileId = new Map(ordered.map((t, i) => [t.id, format === 'claude' ? String(i + 1) : t.id]));
  const position = new Map(ordered.map((t, i) => [t.id, i]));
  const byPosition = (a: string, b: string) => (position.get(a) ?? 0) - (position.get(b) ?? 0);
  const named = (ids: string[] | undefined) => [...new Set(ids ?? [])].sort(byPosition).map((id) => fileId.get(id) as string);
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
  return ordered.map((task) => {
    const id = fileId.get(task.id) as string;
    const blocks = named(blocksOf.get(task.id));
    const blockedBy = named(blockedByOf.get(task.id));
    const activeForm = task.activeForm === null ? {} : { activeForm: task.activeForm };
    const owner = task.owner === null ? {} : { owner: task.owner };
    const metadata = Object.keys(task.metadata).length ? { metadata: sortedKeys(task.metadata) } : {};
    const body =
      format === 'claude'
        ? {
            id,
            subject: task.subject,
            description: task.description,
            ...activeForm,
            status: task.status,
            blocks,
            blockedBy,
            ...owner,
            ...metadata,
          }
        : {
            id,
            subject: task.subject,
            description: task.description,
            status: task.status,
            ...activeForm,
            blocks,
            blockedBy,
            ...owner,
            ...metadata,
            threadID: task.threadId,
          };
    return { name: `${id}.json`, content: json(body) };
  });
}
