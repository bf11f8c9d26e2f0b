// Walks every contract a caller or a model can hit — every tRPC procedure's input, every agent-tasks tool and the moira
// tools — through bad inputs derived from its JSON Schema, and checks each refusal: it starts with `Error:`, names its
// field, and never carries a library's default wording (e.g. zod's "Too big: expected number to be <=1000").
import { moiraTools, toolKit } from '@agent-tasks/core';
import { formatZodError } from '@agent-tasks/schema';
import { appRouter } from '../apps/server/src/routers/root.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toJSONSchema, z } from 'zod';
import { countRows, refused, sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  maxItems?: number;
  minItems?: number;
  pattern?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
}

/** zod's own wordings (v4): none may reach a caller. */
const LIBRARY_WORDING =
  /Invalid input: expected|Too big:|Too small:|Invalid option:|Unrecognized key|Invalid element|Invalid key|Invalid string|Invalid union|Invalid type|received undefined/;

/** Values one step outside a field's schema. */
function badValues(s: Schema): unknown[] {
  if (s.anyOf) return s.anyOf.flatMap(badValues);
  const types = Array.isArray(s.type) ? s.type : [s.type];
  const out: unknown[] = [];
  if (types.includes('string')) {
    out.push(12345, { x: 1 });
    if (s.maxLength !== undefined) out.push('x'.repeat(s.maxLength + 1));
    if ((s.minLength ?? 0) > 0) out.push('');
    if (s.pattern) out.push('!! not this');
    if (s.enum || s.const !== undefined) out.push('nope');
  }
  if (types.includes('integer') || types.includes('number')) {
    out.push('x', 1.5);
    if (s.minimum !== undefined) out.push(s.minimum - 1);
    if (s.maximum !== undefined) out.push(s.maximum + 1);
  }
  if (types.includes('boolean')) out.push('yes');
  if (types.includes('array')) {
    out.push('x', [12345, { x: 1 }]);
    if (s.maxItems !== undefined) out.push(Array.from({ length: s.maxItems + 1 }, () => 'x'));
    if ((s.minItems ?? 0) > 0) out.push([]);
    if (s.items?.properties) out.push(...objectCases(s.items).map((c) => [c]));
  }
  if (types.includes('object')) {
    out.push([], 'x');
    if (s.properties) out.push(...objectCases(s));
  }
  return out;
}

/** Bad objects for an object schema: not an object, an unknown field, each field missing or a near miss. */
function objectCases(s: Schema): unknown[] {
  const props = s.properties ?? {};
  const cases: unknown[] = [42, 'x', [], { zzz_unknown_field: 1 }, { threadID: 'ses_1' }, {}];
  for (const [key, prop] of Object.entries(props)) for (const bad of badValues(prop)) cases.push({ [key]: bad });
  return cases;
}

/** Every contract: tRPC procedure inputs (by path), the agent-tasks tools and the moira tools. */
function contracts(): [string, z.ZodType][] {
  const procedures = (appRouter as unknown as { _def: { procedures: Record<string, { _def: { inputs: z.ZodType[] } }> } })._def.procedures;
  const out: [string, z.ZodType][] = [];
  for (const [path, procedure] of Object.entries(procedures)) {
    for (const input of procedure._def.inputs) out.push([`trpc ${path}`, input]);
  }
  for (const spec of [...toolKit, ...moiraTools]) out.push([`tool ${spec.name}`, spec.input]);
  return out;
}

describe('every contract refuses in our words', () => {
  const all = contracts();

  it('walks every procedure and tool', () => {
    const names = all.map(([name]) => name);
    for (const path of [
      'trpc todos.write',
      'trpc tasks.update',
      'trpc runs.step',
      'trpc runs.name',
      'trpc todos.card',
      'trpc tasks.watch',
      'tool step',
      'tool start',
      'tool checklist_intake',
    ]) {
      expect(names).toContain(path);
    }
    expect(all.length).toBeGreaterThan(40);
  });

  for (const [name, contract] of all) {
    it(`${name}: each refusal starts with Error:, names its field, and carries no library wording`, () => {
      if (contract instanceof z.ZodVoid) return expect(contract.safeParse({ a: 1 }).success).toBe(false);
      const schema = toJSONSchema(contract, { io: 'input', unrepresentable: 'any' }) as Schema;
      const inputs = schema.properties ? objectCases(schema) : badValues(schema);
      let checked = 0;
      for (const input of inputs) {
        const parsed = contract.safeParse(input);
        if (parsed.success) continue;
        for (const issue of parsed.error.issues) {
          const text = formatZodError(new z.ZodError([issue]));
          const where = `${name} ${JSON.stringify(input).slice(0, 80)} → ${text}`;
          expect(text, where).toMatch(/^Error: /);
          expect(text, where).not.toMatch(LIBRARY_WORDING);
          const key = [...issue.path].reverse().find((p) => typeof p === 'string');
          if (key !== undefined) expect(text, where).toContain(String(key));
          else expect(text, where).toMatch(/`[^`]+`|\{[^}]+\}|the input/);
          checked++;
        }
      }
      expect(checked, name).toBeGreaterThan(0);
    });
  }
});

describe('over HTTP', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server.stop());

  it('a refusal that had only the library wording reads as ours; nothing is recorded', async () => {
    const s = await sessionClient(server);
    expect((await refused(s.client.tasks.list({ limit: 5000 }))).message).toBe('Error: invalid input: `limit` must be at most 1000.');
    expect((await refused(s.client.sessions.get({ sessionId: '' }))).message).toBe('Error: invalid input: `sessionId` must not be empty.');
    const before = await countRows(server, 'Task');
    expect(
      (await refused(s.client.tasks.create({ subject: 'x', metadata: { a: 1 }, blockedBy: [], description: 5 } as never))).message,
    ).toBe('Error: invalid task: `description` must be a string.');
    expect(await countRows(server, 'Task')).toBe(before);
  });
});
