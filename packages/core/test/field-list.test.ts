// The field lists in strict objects' refusals come from the objects' own shapes (schema's `fieldList`), so a field
// added to a contract is named in its refusal without anyone writing it twice.
import { fieldList, taskCreateInput, taskUpdateInput, todoWriteInput } from '@agent-tasks/schema';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';

const refusalOf = (schema: z.ZodType) => schema.safeParse('not an object').error?.issues[0]?.message;

describe('fieldList', () => {
  it('lists required fields, then optional ones marked ?, in shape order, with an optional listName last', () => {
    const shape = { listName: z.string().optional(), id: z.string(), limit: z.number().default(5), owner: z.string().optional() };
    expect(fieldList(shape)).toBe('{ id, limit?, owner?, listName? }');
    expect(fieldList({ listName: z.string(), id: z.string() })).toBe('{ listName, id }');
  });

  it('takes lead fields first, leaves unlisted ones out, ends in … past most, or lists alternatives', () => {
    const shape = { a: z.string(), b: z.string().optional(), c: z.string().optional(), d: z.string().optional() };
    expect(fieldList(shape, { lead: ['c'] })).toBe('{ c?, a, b?, d? }');
    expect(fieldList(shape, { unlisted: ['b'] })).toBe('{ a, c?, d? }');
    expect(fieldList(shape, { most: 2 })).toBe('{ a, b?, … }');
    expect(fieldList({ todos: z.array(z.string()).optional(), forkOf: z.string().optional() }, { alternatives: true })).toBe(
      '{ todos } or { forkOf }',
    );
  });

  it('skips a listed name the shape lacks, so an object derived by omit or extend lists its own fields', () => {
    expect(fieldList({ a: z.string() }, { lead: ['b'], unlisted: ['c'] })).toBe('{ a }');
    expect(refusalOf(taskCreateInput.omit({ repoURL: true, parentID: true }))).toBe(
      'Error: invalid input: expected an object { subject, description?, activeForm?, owner?, metadata?, blockedBy?, blocks?, priority?, labels?, requires?, listName? }.',
    );
  });

  it("a contract's refusal names its fields from its shape", () => {
    expect(refusalOf(todoWriteInput)).toBe('Error: invalid input: expected an object { todos }.');
    expect(refusalOf(taskCreateInput)).toBe(
      'Error: invalid input: expected an object { subject, description?, activeForm?, owner?, metadata?, blockedBy?, blocks?, repoURL?, parentID?, priority?, labels?, requires?, listName? }.',
    );
    expect(refusalOf(taskUpdateInput)).toBe(
      'Error: invalid input: expected an object { id, status?, evidence?, subject?, description?, activeForm?, owner?, metadata?, priority?, labels?, blockedBy?, … }.',
    );
    expect(refusalOf(taskCreateInput.extend({ estimate: z.number().optional() }))).toContain('requires?, estimate?, listName? }');
  });
});
