// Black-box tests of the SDK's ready todo_write tool definition: schema from the contract, texts for a model.
import { createClient, todoWriteTool } from '@agent-tasks/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { countRows, keyClient, sessionClient } from './support/fixtures.ts';
import { type RunningServer, startServer } from './support/server.ts';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.stop());

describe('todo_write tool definition', () => {
  it('has the name, a description for a model, and the JSON Schema of the input contract', () => {
    const tool = todoWriteTool(createClient({ url: server.url, token: 'unused' }));
    expect(tool.name).toBe('todo_write');
    expect(tool.description).toContain('WHOLE list');
    const schema = tool.inputSchema as {
      type: string;
      required: string[];
      additionalProperties: boolean;
      properties: {
        todos: {
          type: string;
          maxItems: number;
          items: { required: string[]; additionalProperties: boolean; properties: Record<string, { enum?: string[]; maxLength?: number }> };
        };
      };
    };
    expect(schema.type).toBe('object');
    expect(schema.required).toEqual(['todos']);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.todos.maxItems).toBe(100);
    expect(schema.properties.todos.items.required.sort()).toEqual(['content', 'status']);
    expect(schema.properties.todos.items.additionalProperties).toBe(false);
    expect(schema.properties.todos.items.properties.status?.enum).toEqual(['pending', 'in_progress', 'completed']);
    expect(schema.properties.todos.items.properties.content?.maxLength).toBe(1000);
  });

  it("returns the seed's answer text on success", async () => {
    const s = await sessionClient(server);
    const tool = todoWriteTool(s.client);
    const text = await tool.handler({
      todos: [
        { content: 'Run tests', status: 'in_progress' },
        { content: 'Ship', status: 'pending' },
      ],
    });
    expect(text).toBe('Updated todo list: 1 pending, 1 in progress, 0 completed');
    expect((await s.client.todos.get()).revision).toBe(1);
  });

  it("returns a refusal's Error: text instead of throwing, and nothing is recorded", async () => {
    const s = await sessionClient(server);
    const tool = todoWriteTool(s.client);
    await expect(
      tool.handler({
        todos: [
          { content: 'Run tests', status: 'pending' },
          { content: 'Run tests', status: 'pending' },
        ],
      }),
    ).resolves.toBe('Error: invalid todos: duplicate content "Run tests"');
    await expect(tool.handler({ todos: [{ content: 'x', status: 'pending', priority: 1 }] })).resolves.toBe(
      'Error: invalid todo: unknown field `todos[0].priority`; an item is only its `content` and `status`.',
    );
    const agentOnly = todoWriteTool(await keyClient(server, 'agent'));
    await expect(agentOnly.handler({ todos: [] })).resolves.toBe(
      'Error: todo_write requires an owning agent session before anything is written.',
    );
    expect(await countRows(server, 'TodoUpdate', '"sessionId" = ?', s.session.id)).toBe(0);
  });

  it('returns an Error: text when the server cannot be reached', async () => {
    const tool = todoWriteTool(createClient({ url: 'http://127.0.0.1:1', token: 'ats_x' }));
    expect(await tool.handler({ todos: [] })).toMatch(/^Error: could not reach agent-tasks: /);
  });
});
