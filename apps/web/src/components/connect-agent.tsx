// The empty state of the sessions page: what to do — connect an agent through the SDK or over MCP — and what the
// signed-in key itself may do.
import { useRole } from '../lib/permissions.ts';
import { RoleHint } from './role-hint.tsx';

export function ConnectAgent() {
  const role = useRole();
  const origin = window.location.origin;
  const sdk = `import { createClient, openSessionClient } from '@agent-tasks/sdk';

const agent = createClient({ url: '${origin}', token: process.env.AGENT_TASKS_TOKEN! }); // an agent key
const { client } = await openSessionClient(agent, { title: 'Fix the login bug' });
await client.todos.write({ todos: [{ content: 'Reproduce the bug', status: 'in_progress' }] });`;
  const mcp = `{
  "mcpServers": {
    "agent-tasks": {
      "type": "http",
      "url": "${origin}/mcp",
      "headers": { "Authorization": "Bearer atk_your_agent_key" }
    }
  }
}`;
  return (
    <section className="empty" aria-labelledby="empty-sessions">
      <h2 id="empty-sessions">No sessions yet — connect an agent:</h2>
      <p>An admin creates an agent key (Admin → Keys); the agent opens a session with it. Its list shows here live.</p>
      <RoleHint role={role} place="sessions" />
      <h3>With the TypeScript SDK</h3>
      <pre>
        <code>{sdk}</code>
      </pre>
      <h3>Over MCP (Claude Code, Cursor, any MCP client)</h3>
      <pre>
        <code>{mcp}</code>
      </pre>
    </section>
  );
}
