// One MCP initialize over HTTP, never followed by anything (the session is left open): for the tests of MCP session opens.
import { type DatabaseOf, countRows } from './database.ts';

/** Sends an initialize to the server's /mcp as `token`; answers its status, session id, Retry-After and body. Rejects
 * when `signal` aborts it (the client gone before the answer). */
export async function initializeMcp(on: { url: string }, token: string, options: { signal?: AbortSignal } = {}) {
  const res = await fetch(`${on.url}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'flood', version: '1' } },
    }),
    ...(options.signal ? { signal: options.signal } : {}),
  });
  const text = await res.text();
  return { status: res.status, session: res.headers.get('mcp-session-id'), retryAfter: res.headers.get('retry-after'), text };
}

export type McpInitializeAnswer = Awaited<ReturnType<typeof initializeMcp>>;

/** The key's open MCP sessions in the server's database (its rows in McpSession, linked to the key by `keyId`). */
export const openMcpSessions = async (on: DatabaseOf, keyId: string) =>
  Number(await countRows(on, 'McpSession', '"keyId" = ? AND "closedAt" IS NULL', keyId));
