// The tool kit's JSON Schemas: valid draft 2020-12 schemas that accept exactly what the zod contracts accept.
// Property-based (fast-check): valid inputs and near misses are generated from each JSON Schema, and for every one
// `ajv.validate(jsonSchema, x)` must equal `contract.safeParse(x).success` — up to the documented differences below.
import { type ToolSpec, toolKit } from '@agent-tasks/core';
import { TASK_METADATA_MAX_BYTES, formatZodError, jsonSchemaOf } from '@agent-tasks/schema';
import { agentTools, anthropicTools, createClient, createDispatcher, openAITools } from '@agent-tasks/sdk';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

/**
 * Documented differences between the JSON Schema and the zod contract (everything else must agree exactly):
 *
 * 1. Trimming. zod trims these strings before checking them; JSON Schema cannot express trimming. So a whitespace-only
 *    string passes `minLength: 1` but is refused by zod, a string padded with whitespace past `maxLength` is refused by
 *    JSON Schema but accepted by zod, and a padded list name (" my-list ") fails the JSON Schema `pattern` but is
 *    accepted by zod. The oracle trims exactly these paths before asking ajv (`*` is any array index).
 * 2. `metadata` (TaskCreate, TaskUpdate) must be at most TASK_METADATA_MAX_BYTES of JSON.stringify (a refinement
 *    JSON Schema cannot express). The oracle applies that limit itself.
 * 4. Whole numbers beyond ±(2^53 - 1) are refused by zod's `.int()`; the JSON Schema leaves out those bounds (they cost a
 *    model tokens and tell it nothing). The oracle refuses such an integer itself.
 * 3. (Not generated: not JSON.) TaskList and TaskPlan default to `{}` when the input is `undefined`; ajv refuses
 *    `undefined`. The tool kit sends `{}` for missing arguments, so a model never sees this.
 */
const TRIMMED: Record<string, readonly string[]> = {
  todo_write: ['todos.*.content'],
  TaskCreate: ['subject', 'description', 'activeForm', 'owner', 'repoURL', 'parentID'],
  TaskGet: [],
  TaskList: ['owner'],
  TaskUpdate: ['subject', 'description', 'activeForm', 'owner', 'repoURL', 'parentID'],
  TaskClaim: ['owner'],
  TaskPlan: [],
  checklist_prepare: ['taskContext.tasks.*.action', 'taskContext.tasks.*.expected_result'],
  checklist_execute: [],
  checklist_name: ['name'],
  checklist_intake: ['tasks.*.action', 'tasks.*.expected_result', 'progress_checklist_outcome', 'execution_note', 'remarks.*.text'],
  checklist_step: ['evidence', 'progress_execution_outcome'],
  checklist_teleport: [],
  checklist_revise: ['tasks.*.action', 'tasks.*.expected_result', 'progress_checklist_outcome', 'progress_execution_outcome'],
  checklist_report_blocker: ['blocker'],
  checklist_get: [],
};
const WITH_METADATA = new Set(['TaskCreate', 'TaskUpdate']);

/** fast-check runs per property; raise it (FC_NUM_RUNS=5000) for a longer search. */
const NUM_RUNS = Number(process.env.FC_NUM_RUNS ?? 200);

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  enum?: (string | null)[];
  const?: string;
  minimum?: number;
  maximum?: number;
  anyOf?: Schema[];
}

// Nullable fields are written `type: [T, "null"]`, a union type strict mode asks to allow explicitly.
const ajv = new Ajv2020({ strict: true, allowUnionTypes: true });
const tools = toolKit.map((spec) => {
  const schema = jsonSchemaOf(spec.input);
  return { spec, schema: schema, validate: ajv.compile(schema) };
});

// ---- the oracle ------------------------------------------------------------------------------------------------

const toJson = (x: unknown): unknown => JSON.parse(JSON.stringify(x) ?? 'null');

/** Trims the strings at the given paths, as zod does before its checks. */
function trimAt(value: unknown, paths: readonly string[], at = ''): unknown {
  if (typeof value === 'string') return paths.includes(at) ? value.trim() : value;
  if (Array.isArray(value)) return value.map((v) => trimAt(v, paths, at ? `${at}.*` : '*'));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      Object.defineProperty(out, k, {
        value: trimAt(v, paths, at ? `${at}.${k}` : k),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    return out;
  }
  return value;
}

const metadataFits = (name: string, x: unknown) => {
  if (!WITH_METADATA.has(name) || !x || typeof x !== 'object' || !('metadata' in x)) return true;
  const m = x.metadata;
  return !m || typeof m !== 'object' || Array.isArray(m) || JSON.stringify(m).length <= TASK_METADATA_MAX_BYTES;
};

/** Difference 4: every whole number at an integer node is a safe integer. */
function safeIntegers(schema: Schema, x: unknown): boolean {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('integer') && typeof x === 'number' && Number.isInteger(x)) return Number.isSafeInteger(x);
  if (schema.items && Array.isArray(x)) return x.every((v) => safeIntegers(schema.items as Schema, v));
  if (schema.properties && x && typeof x === 'object' && !Array.isArray(x)) {
    return Object.entries(schema.properties).every(([k, p]) => !Object.hasOwn(x, k) || safeIntegers(p, (x as Record<string, unknown>)[k]));
  }
  return true;
}

type Verdict = 'agree' | 'trim' | 'metadata' | 'integer';

/** Asserts the contract and the JSON Schema agree on x (up to the documented differences); says which applied. */
function check(tool: (typeof tools)[number], raw: unknown): { zodOk: boolean; verdict: Verdict } {
  const x = toJson(raw);
  const name = tool.spec.name;
  const zodOk = tool.spec.input.safeParse(x).success;
  const ajvOk = tool.validate(x);
  const trimmed = trimAt(x, TRIMMED[name] ?? []);
  const expected = tool.validate(trimmed) && metadataFits(name, x) && safeIntegers(tool.schema, x);
  if (zodOk !== expected) {
    throw new Error(
      `${name}: zod says ${zodOk}, JSON Schema (after the documented differences) says ${expected} for ${JSON.stringify(x).slice(0, 500)}`,
    );
  }
  return {
    zodOk,
    verdict: ajvOk === zodOk ? 'agree' : !safeIntegers(tool.schema, x) ? 'integer' : metadataFits(name, x) ? 'trim' : 'metadata',
  };
}

// ---- arbitraries derived from the JSON Schema -----------------------------------------------------------------

const WHITESPACE = [
  ' ',
  '\t',
  '\n',
  '\r',
  '\v',
  '\f',
  '\u00a0',
  '\u1680',
  '\u2000',
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
  '\ufeff',
];
/** One code point (or a lone surrogate): mostly plain, often whitespace, sometimes astral, quotes or controls. */
const unit = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...'abcxyzABC0189._-') },
  { weight: 2, arbitrary: fc.constantFrom(...WHITESPACE) },
  { weight: 1, arbitrary: fc.constantFrom('é', '😀', '\ud800', '\udc00', '"', '\\', '\u0000', '\u200b') },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
);
/** A string of about n code points; long ones are a short random head and tail around a repeated filler. */
const textOf = (n: number): fc.Arbitrary<string> =>
  n <= 40
    ? fc.array(unit, { minLength: n, maxLength: n }).map((a) => a.join(''))
    : fc
        .tuple(fc.array(unit, { maxLength: 10 }), fc.array(unit, { maxLength: 10 }), fc.constantFrom('a', 'é', '😀', 'a b'))
        .map(([head, tail, fill]) => {
          const rest = n - head.length - tail.length;
          return head.join('') + fill.repeat(Math.ceil(rest / [...fill].length)).slice(0, fill === '😀' ? rest * 2 : rest) + tail.join('');
        });
const lengthIn = (min: number, max: number) =>
  fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min, max: Math.min(max, min + 12) }) },
    { weight: 1, arbitrary: fc.constantFrom(min, max, Math.max(min, max - 1)) },
  );

const jsonish = fc.jsonValue({ maxDepth: 2 });
const wrongType = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.string({ maxLength: 5 }),
  fc.array(fc.jsonValue({ maxDepth: 1 }), { maxLength: 2 }),
  fc.dictionary(fc.string({ maxLength: 5 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
);
/** Metadata around the byte limit: {"note":"…"} is 11 characters plus the note. */
const metadataNearLimit = fc
  .integer({ min: TASK_METADATA_MAX_BYTES - 3, max: TASK_METADATA_MAX_BYTES + 3 })
  .map((n) => ({ note: 'x'.repeat(n - 11) }));

function withKey(base: Record<string, unknown>, key: string, value: unknown) {
  const out = { ...base };
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  return out;
}

/** Values the JSON Schema accepts. */
function valid(s: Schema): fc.Arbitrary<unknown> {
  if (s.anyOf) return fc.oneof(...s.anyOf.map(valid));
  if (Array.isArray(s.type)) return fc.oneof(...s.type.map((type) => valid({ ...s, type })));
  switch (s.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const min = s.minimum ?? -1000;
      const max = s.maximum ?? 1000;
      return fc.oneof(
        { weight: 4, arbitrary: fc.integer({ min, max: Math.min(max, min + 100) }) },
        { weight: 1, arbitrary: fc.constantFrom(min, max) },
      );
    }
    case 'string': {
      if (s.const !== undefined) return fc.constant(s.const);
      if (s.enum) return fc.constantFrom(...s.enum);
      const min = s.minLength ?? 0;
      const max = s.maxLength ?? 30;
      if (s.pattern) {
        const re = new RegExp(s.pattern, 'u');
        return fc.stringMatching(re).filter((v) => [...v].length >= min && [...v].length <= max);
      }
      return lengthIn(min, max).chain(textOf);
    }
    case 'array': {
      const item = valid(s.items ?? {});
      const min = s.minItems ?? 0;
      const max = s.maxItems ?? 5;
      return fc
        .oneof({ weight: 6, arbitrary: fc.integer({ min, max: Math.min(max, min + 3) }) }, { weight: 1, arbitrary: fc.constant(max) })
        .chain((n) => fc.array(item, { minLength: n, maxLength: n }));
    }
    case 'object': {
      if (s.properties) {
        const model = Object.fromEntries(Object.entries(s.properties).map(([k, p]) => [k, valid(p)]));
        return fc.record(model, { requiredKeys: s.required ?? [] });
      }
      // metadata: any JSON object, sometimes right at the byte limit
      return fc.oneof(
        { weight: 4, arbitrary: fc.dictionary(fc.string({ unit, maxLength: 8 }), jsonish, { maxKeys: 4 }) },
        { weight: 1, arbitrary: metadataNearLimit },
      );
    }
    default:
      return jsonish;
  }
}

/** Values one step outside the JSON Schema (or inside it by the documented differences): a near miss at some node. */
function nearMiss(s: Schema): fc.Arbitrary<unknown> {
  if (s.anyOf) return fc.oneof(...s.anyOf.map(nearMiss));
  if (Array.isArray(s.type)) return fc.oneof(...s.type.filter((t) => t !== 'null').map((type) => nearMiss({ ...s, type })));
  switch (s.type) {
    case 'null':
      return wrongType;
    case 'boolean':
      return fc.oneof(fc.constantFrom('true', 'false', 0, 1, null, []), wrongType);
    case 'integer': {
      const min = s.minimum ?? 0;
      const max = s.maximum ?? Number.MAX_SAFE_INTEGER;
      return fc.oneof(
        fc.constantFrom(min - 1, max + 1, min + 0.5, String(min), -1, 1e21),
        fc.double({ noNaN: true, noDefaultInfinity: true }),
        wrongType,
      );
    }
    case 'string': {
      const min = s.minLength ?? 0;
      const max = s.maxLength;
      // whitespace around a valid string, often one already at the maximum length
      const atMost = max !== undefined && !s.pattern && !s.enum ? fc.oneof(valid(s), textOf(max)) : valid(s);
      const padded = fc
        .tuple(atMost, fc.constantFrom(...WHITESPACE), fc.boolean())
        .map(([v, w, front]) => (front ? `${w}${v}` : `${v}${w}`));
      const options: fc.Arbitrary<unknown>[] = [wrongType, padded, padded];
      if (s.enum)
        options.push(
          fc.constantFrom(...s.enum.flatMap((e) => (e === null ? [] : [e.toUpperCase(), e.replace('_', '-'), `${e} `]))),
          fc.constantFrom('done', 'in progress', ''),
        );
      if (s.pattern) {
        options.push(
          fc.tuple(valid(s), fc.constantFrom(' ', '!', '/', 'é', '\n', '_', 't-'), fc.nat()).map(([v, c, i]) => {
            const at = i % ((v as string).length + 1);
            return `${(v as string).slice(0, at)}${c}${(v as string).slice(at)}`;
          }),
          fc.constantFrom('', 'T-', 't-abc', `T-${'a'.repeat(64)}`, `T-${'a'.repeat(65)}`, 'a'.repeat(100), 'a'.repeat(101), 'T-abc\n'),
        );
      }
      if (max !== undefined)
        options.push(
          fc.constantFrom(max + 1, max + 2).chain(textOf),
          textOf(max).map((v) => `${v} `),
        );
      if (min > 0) options.push(fc.constantFrom('', ...WHITESPACE, '   ', '\t\n'), textOf(min - 1));
      return fc.oneof(...options);
    }
    case 'array': {
      const item = s.items ?? {};
      const min = s.minItems ?? 0;
      const oneItemMissed = fc.tuple(valid({ ...s, minItems: Math.max(min, 1) }), nearMiss(item), fc.nat()).map(([arr, bad, i]) => {
        const a = [...(arr as unknown[])];
        a[i % a.length] = bad;
        return a;
      });
      const options: fc.Arbitrary<unknown>[] = [wrongType, oneItemMissed, oneItemMissed];
      if (s.maxItems !== undefined) options.push(fc.array(valid(item), { minLength: s.maxItems + 1, maxLength: s.maxItems + 2 }));
      if (min > 0) options.push(fc.array(valid(item), { minLength: min - 1, maxLength: min - 1 }));
      return fc.oneof(...options);
    }
    case 'object': {
      if (!s.properties) {
        // metadata: not an object, or over the byte limit
        return fc.oneof(
          fc.constantFrom(null, [], [1], 'x', 1, true),
          metadataNearLimit,
          fc.constant({ note: 'é'.repeat(TASK_METADATA_MAX_BYTES) }),
        );
      }
      const props = s.properties;
      const names = Object.keys(props);
      const base = valid(s) as fc.Arbitrary<Record<string, unknown>>;
      const options: fc.Arbitrary<unknown>[] = [
        fc.constantFrom(null, [], 'x', 1, true),
        // an unknown field, including names that are special in JavaScript
        fc
          .tuple(
            base,
            fc.constantFrom('priority', 'id ', 'Subject', 'extra', 'constructor', 'toString', '__proto__', 'hasOwnProperty', ''),
            jsonish,
          )
          .map(([v, k, x]) => withKey(v, k, x)),
        // one field replaced by a near miss
        fc.constantFrom(...names).chain((k) => fc.tuple(base, nearMiss(props[k] as Schema)).map(([v, bad]) => withKey(v, k, bad))),
        // every field an arbitrary JSON value
        fc.record(Object.fromEntries(names.map((k) => [k, jsonish])), { requiredKeys: [] }),
      ];
      if (s.required?.length) {
        options.push(
          fc.tuple(base, fc.constantFrom(...s.required)).map(([v, k]) => {
            const { [k]: _dropped, ...rest } = v;
            return rest;
          }),
        );
      }
      return fc.oneof(...options);
    }
    default:
      return wrongType;
  }
}

/** Every node below the root of a value, with its schema (for anyOf, the first branch the node's type fits). */
function sites(s: Schema, v: unknown, path: (string | number)[] = []): { path: (string | number)[]; schema: Schema }[] {
  const here = path.length ? [{ path, schema: s }] : [];
  const branch = s.anyOf
    ? s.anyOf.find((b) =>
        b.type === 'null' ? v === null : b.type === 'array' ? Array.isArray(v) : typeof v === (b.type === 'integer' ? 'number' : b.type),
      )
    : s;
  if (!branch) return here;
  if (branch.type === 'array' && Array.isArray(v)) return [...here, ...v.flatMap((x, i) => sites(branch.items ?? {}, x, [...path, i]))];
  if (branch.type === 'object' && branch.properties && v && typeof v === 'object') {
    return [
      ...here,
      ...Object.entries(v).flatMap(([k, x]) => (branch.properties?.[k] ? sites(branch.properties[k], x, [...path, k]) : [])),
    ];
  }
  return here;
}

function setAt(v: unknown, path: (string | number)[], bad: unknown): unknown {
  const [head, ...rest] = path;
  if (head === undefined) return bad;
  if (Array.isArray(v)) return v.map((x, i) => (i === head ? setAt(x, rest, bad) : x));
  return withKey(v as Record<string, unknown>, String(head), setAt((v as Record<string, unknown>)[head], rest, bad));
}

/** A valid value with a near miss at one node anywhere in it, every node equally likely. */
const deepMiss = (s: Schema) =>
  valid(s).chain((v) => {
    const all = sites(s, v);
    if (!all.length) return nearMiss(s);
    return fc.constantFrom(...all).chain((site) => nearMiss(site.schema).map((bad) => setAt(v, site.path, bad)));
  });

// ---- the tests -------------------------------------------------------------------------------------------------

describe('tool JSON Schemas', () => {
  it('are valid draft 2020-12 JSON Schemas of an object, compiled in strict mode, for names models accept', () => {
    expect(tools.map((t) => t.spec.name)).toEqual(Object.keys(TRIMMED));
    for (const { spec, schema } of tools) {
      const raw = jsonSchemaOf(spec.input);
      expect(ajv.validateSchema(raw), `${spec.name}: ${ajv.errorsText(ajv.errors)}`).toBe(true);
      // Draft 2020-12 without the `$schema` line: every tool would repeat it, and a model reads none of it.
      expect(raw.$schema).toBeUndefined();
      expect(schema.type, spec.name).toBe('object');
      expect(schema.additionalProperties, spec.name).toBe(false);
      // OpenAI function names: ^[a-zA-Z0-9_-]{1,64}$; Anthropic tool names: ^[a-zA-Z0-9_-]{1,128}$
      expect(spec.name).toMatch(/^[a-zA-Z0-9_-]{1,64}$/);
      expect(spec.description.length, spec.name).toBeGreaterThan(30);
    }
  });

  it('are the same in every shape: generic, OpenAI function tools and Anthropic tool definitions', () => {
    const generic = agentTools(createClient({ url: 'http://127.0.0.1:1', token: 'ats_unused' }));
    const expected = toolKit.map((s) => ({ name: s.name, description: s.description, inputSchema: jsonSchemaOf(s.input) }));
    expect(generic.map(({ name, description, inputSchema }) => ({ name, description, inputSchema }))).toEqual(expected);
    expect(openAITools(generic)).toEqual(
      expected.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.inputSchema } })),
    );
    expect(anthropicTools(generic)).toEqual(
      expected.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema })),
    );
    // serialisable as a request body as they are
    expect(JSON.parse(JSON.stringify(openAITools(generic)))).toEqual(openAITools(generic));
  });

  it('document the differences from the contracts exactly (trimming, metadata size)', () => {
    const byName = Object.fromEntries(tools.map((t) => [t.spec.name, t]));
    const both = (name: string, x: unknown) => {
      const t = byName[name];
      if (!t) throw new Error(name);
      return { jsonSchema: t.validate(x), zod: t.spec.input.safeParse(x).success };
    };
    // 1. zod trims: whitespace-only passes minLength, padding past maxLength or outside the pattern fails JSON Schema
    expect(both('TaskCreate', { subject: '   ' })).toEqual({ jsonSchema: true, zod: false });
    expect(both('checklist_step', { runId: 'r', attemptId: 'a', task: 1, evidence: '\n', progress_execution_outcome: 'ok' })).toEqual({
      jsonSchema: true,
      zod: false,
    });
    expect(both('todo_write', { todos: [{ content: `${'a'.repeat(1000)} `, status: 'pending' }] })).toEqual({
      jsonSchema: false,
      zod: true,
    });
    expect(both('TaskUpdate', { id: 'T-1', subject: `${'a'.repeat(200)} ` })).toEqual({ jsonSchema: false, zod: true });
    // not trimmed: ids and the parent execution id agree
    expect(both('TaskGet', { id: ' T-1' })).toEqual({ jsonSchema: false, zod: false });
    expect(both('checklist_prepare', { parentExecutionId: ' ' })).toEqual({ jsonSchema: true, zod: true });
    // 2. metadata at most 10,000 characters of JSON
    const fits = { note: 'x'.repeat(TASK_METADATA_MAX_BYTES - 11) };
    expect(both('TaskCreate', { subject: 'a', metadata: fits })).toEqual({ jsonSchema: true, zod: true });
    expect(both('TaskUpdate', { id: 'T-1', metadata: { ...fits, n: 1 } })).toEqual({ jsonSchema: true, zod: false });
    // lengths count code points in both (an emoji is one character)
    expect(both('TaskCreate', { subject: '😀'.repeat(200) })).toEqual({ jsonSchema: true, zod: true });
    expect(both('TaskCreate', { subject: '😀'.repeat(201) })).toEqual({ jsonSchema: false, zod: false });
    // 3. a missing input: zod's default; ajv refuses undefined (the tool kit sends {} instead)
    expect(both('TaskList', undefined)).toEqual({ jsonSchema: false, zod: true });
    expect(both('TaskList', {})).toEqual({ jsonSchema: true, zod: true });
  });

  for (const tool of tools) {
    describe(tool.spec.name, () => {
      it('accepts exactly what the contract accepts: valid inputs', () => {
        let zodValid = 0;
        fc.assert(
          fc.property(valid(tool.schema), (x) => {
            if (check(tool, x).zodOk) zodValid++;
          }),
          { numRuns: NUM_RUNS },
        );
        // the generator is not vacuous: most JSON-Schema-valid inputs are valid contracts too
        expect(zodValid).toBeGreaterThan(NUM_RUNS / 4);
      });

      it('refuses exactly what the contract refuses: near misses (wrong types, unknown or missing fields, limits)', () => {
        let zodInvalid = 0;
        fc.assert(
          fc.property(fc.oneof(nearMiss(tool.schema), deepMiss(tool.schema)), (x) => {
            if (!check(tool, x).zodOk) zodInvalid++;
          }),
          { numRuns: NUM_RUNS },
        );
        // the generator is not vacuous: a good share of near misses are refused (about half for the loosest tools, so
        // a bound at half failed one run in a few; a quarter is far from what chance gives)
        expect(zodInvalid).toBeGreaterThan(NUM_RUNS / 4);
      });

      it('any JSON value at all', () => {
        fc.assert(
          fc.property(
            fc.oneof(
              fc.jsonValue(),
              fc.dictionary(fc.constantFrom(...Object.keys(tool.schema.properties ?? {}), 'x'), fc.jsonValue({ maxDepth: 2 })),
            ),
            (x) => {
              check(tool, x);
            },
          ),
          { numRuns: NUM_RUNS },
        );
      });
    });
  }

  it('the generators exercise each documented difference, and only where documented', () => {
    // seeded, so this count never flakes; the properties above draw fresh inputs on every run
    for (const tool of tools) {
      const counts: Record<Verdict, number> = { agree: 0, trim: 0, metadata: 0, integer: 0 };
      for (const x of fc.sample(fc.oneof(valid(tool.schema), deepMiss(tool.schema)), { numRuns: 120, seed: 7 }))
        counts[check(tool, x).verdict]++;
      expect(counts.trim > 0, `${tool.spec.name} trim differences`).toBe((TRIMMED[tool.spec.name] ?? []).length > 0);
      expect(counts.metadata > 0, `${tool.spec.name} metadata differences`).toBe(WITH_METADATA.has(tool.spec.name));
    }
  });
});

describe('invalid arguments from a model', () => {
  // Validation runs before any call, so an unreachable server never matters for an invalid input.
  const offline = agentTools(createClient({ url: 'http://127.0.0.1:1', token: 'ats_unused' }));
  const dispatch = createDispatcher(offline);

  it("answer the contract's Error: text (never a throw) through the handler and the dispatcher", async () => {
    // Missing arguments (undefined or null) are read as {}: TaskList with `null` lists, TaskCreate with `null` names `subject`.
    for (const tool of tools) {
      const handler = offline.find((t) => t.name === tool.spec.name);
      if (!handler) throw new Error(tool.spec.name);
      const samples = fc.sample(
        nearMiss(tool.schema).filter((x) => !tool.spec.input.safeParse(toJson(x)).success),
        { numRuns: 40, seed: 42 },
      );
      for (const raw of samples) {
        const x = toJson(raw);
        // The handler checks the wider contract a tool accepts (e.g. TaskList's one status), as a model's call meets it.
        const parsed = (tool.spec.accepts ?? tool.spec.input).safeParse(x ?? {});
        if (parsed.success) continue;
        const text = formatZodError(parsed.error, { input: x ?? {} });
        expect(text).toMatch(/^Error: invalid /);
        expect(await handler.handler(x)).toBe(text);
        expect(await dispatch({ name: tool.spec.name, arguments: JSON.stringify(x) })).toBe(text);
      }
    }
  });

  it('name the field', async () => {
    const cases: [string, unknown, string][] = [
      ['todo_write', {}, '`todos`'],
      ['todo_write', { todos: [{ content: 'a', status: 'done' }] }, '`todos[0].status`'],
      ['todo_write', { todos: [], baseRevision: -1 }, '`baseRevision`'],
      ['todo_write', { todos: [{ content: 'a', status: 'pending', priority: 'high' }] }, '`todos[0].priority`'],
      ['TaskCreate', { subject: 'a'.repeat(201) }, '`subject`'],
      ['TaskCreate', { subject: 'a', blockedBy: 'T-1' }, '`blockedBy`'],
      ['TaskCreate', { subject: 'a', metadata: [] }, '`metadata`'],
      ['TaskCreate', { subject: 'a', listName: 'a b' }, '`listName`'],
      ['TaskList', { readyOnly: 'yes' }, '`readyOnly`'],
      ['TaskList', { limit: 0 }, '`limit`'],
      ['TaskUpdate', { id: 'T-1', status: 'done' }, '`status`'],
      ['TaskUpdate', { id: 'T-1', owner: '' }, '`owner`'],
      ['TaskUpdate', { id: 'T-1', blockedBy: Array.from({ length: 101 }, (_, i) => `T-${i}`) }, '`blockedBy`'],
      ['checklist_prepare', {}, '`parentExecutionId`'],
      ['checklist_execute', { startAttemptId: 7 }, '`startAttemptId`'],
      ['checklist_intake', { runId: 'r', tasks: [], progress_checklist_outcome: 'p' }, 'a checklist holds 1 to 100 tasks (got 0)'],
      [
        'checklist_intake',
        { runId: 'r', tasks: [{ action: 'a', expected_result: 'b', id: 1 }], progress_checklist_outcome: 'p' },
        '`tasks[0].id`',
      ],
      [
        'checklist_intake',
        { runId: 'r', tasks: [{ action: 'a', expected_result: 'b' }], progress_checklist_outcome: 'p', needs: [{ task: 0, needs: [1] }] },
        '`needs[0].task`',
      ],
      ['checklist_step', { runId: 'r', attemptId: 'a', task: 1, evidence: 'e'.repeat(501), progress_execution_outcome: 'p' }, '`evidence`'],
      [
        'checklist_revise',
        { runId: 'r', tasks: [{ action: 'a', expected_result: 'b' }], progress_checklist_outcome: 'p', progress_execution_outcome: 'p' },
        '`resume_from_task`',
      ],
      ['checklist_report_blocker', { runId: 'r' }, '`blocker`'],
      ['checklist_get', { runId: '' }, '`runId`'],
      ['TaskCreate', { subject: 'a', blockedBy: ['x'] }, '`blockedBy[0]`: "x" is not a task id (T-… or #n)'],
      ['TaskGet', {}, '`id` must be a task id like "T-…" or "#3"'],
    ];
    for (const [name, args, field] of cases) {
      const text = await dispatch({ name, arguments: JSON.stringify(args) });
      expect(text, `${name} ${JSON.stringify(args).slice(0, 80)}`).toMatch(/^Error: invalid /);
      expect(text, `${name} ${JSON.stringify(args).slice(0, 80)}`).toContain(field);
    }
  });

  it('answer a clear Error: text for JSON that does not parse, an unknown tool, and missing arguments', async () => {
    expect(await dispatch({ name: 'TaskCreate', arguments: '{"subject": "a",' })).toMatch(
      /^Error: invalid arguments for TaskCreate: not valid JSON \(/,
    );
    expect(await dispatch({ name: 'TaskDelete', arguments: '{}' })).toBe(
      `Error: unknown tool "TaskDelete"; available tools: ${toolKit.map((s: ToolSpec) => s.name).join(', ')}.`,
    );
    expect(await dispatch({ name: 'TaskCreate', arguments: '' })).toMatch(/^Error: invalid .*`subject`/);
    expect(await dispatch({ name: 'TaskCreate', arguments: undefined })).toMatch(/^Error: invalid .*`subject`/);
    expect(await dispatch({ name: 'TaskCreate', arguments: '[1]' })).toMatch(/^Error: invalid input: expected an object/);
    expect(await dispatch({ name: 'TaskCreate', arguments: 'null' })).toMatch(/^Error: invalid/);
  });
});
