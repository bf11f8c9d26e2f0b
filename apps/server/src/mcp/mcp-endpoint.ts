// MCP over streamable HTTP (/mcp, and the moira tools at /mcp/moira), behind the same bearer auth; an API key gets its
// own agent session per MCP session.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Actor, type ToolApi, isDomainError, sessions } from '@agent-tasks/core';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { TRPCError } from '@trpc/server';
import { authenticate } from '../auth/authenticate.ts';
import { type Services, bearerToken, createInnerContext } from '../context.ts';
import { appRouter } from '../routers/root.ts';
import { createCallerFactory } from '../trpc.ts';
import { type McpKit, agentTasksKit, createMcpServer } from './mcp-server.ts';

const createCaller = createCallerFactory(appRouter);

/** The tool kit's calls, made in-process through the routers (same validation, auth and errors as over HTTP). */
function callerApi(services: Services, token: string): ToolApi {
  const caller = createCaller(createInnerContext(services, token));
  return { todo: caller.todo, task: caller.task, run: caller.run };
}

function errorText(error: unknown): string {
  const cause = error instanceof TRPCError ? error.cause : error;
  if (isDomainError(cause)) return cause.message;
  return 'Error: internal server error.';
}

/** A JSON-RPC error answer outside any MCP session (auth, session lookup, body). */
function rpcError(res: ServerResponse, status: number, code: number, message: string) {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}

/** The largest initialize request read (the MCP SDK's transport reads later messages with the same 4 MB limit). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

class BodyTooLarge extends Error {}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  // past the limit the rest is drained, not kept, so the client still reads the 413
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk as Buffer);
  }
  if (size > MAX_BODY_BYTES) throw new BodyTooLarge();
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

interface McpSession {
  transport: StreamableHTTPServerTransport;
  keyId: string;
  /** The session token's session, when the MCP session was opened with one (null for an API key). */
  sessionId: string | null;
  lastSeen: number;
}

/** MCP sessions idle this long are closed (clients that never send DELETE would otherwise pile up). */
const IDLE_MS = 60 * 60 * 1000;

export function createMcpEndpoint(services: Services, kit: McpKit = agentTasksKit) {
  const open = new Map<string, McpSession>();

  /** The session token the tools act with: the caller's own, or a new agent session opened for an API key. */
  async function sessionToken(actor: Actor, token: string) {
    if (actor.sessionId || actor.role === 'viewer') return token;
    const opened = await sessions.openSession(services.deps, actor, { title: 'MCP session' });
    return opened.token;
  }

  function closeIdle(now: number) {
    for (const [id, session] of open) {
      if (now - session.lastSeen > IDLE_MS) {
        open.delete(id);
        void session.transport.close();
      }
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    closeIdle(Date.now());
    const token = bearerToken(req.headers.authorization);
    let actor: Actor;
    try {
      actor = await authenticate(services, req.socket.remoteAddress, { token });
    } catch (error) {
      if (isDomainError(error) && error.code === 'RATE_LIMITED') {
        res.setHeader('retry-after', String(error.details?.retryAfterSeconds ?? 60));
        return rpcError(res, 429, -32001, error.message);
      }
      return rpcError(res, 401, -32001, isDomainError(error) ? error.message : 'Error: unauthorized.');
    }
    const sessionId = req.headers['mcp-session-id'];
    const existing = typeof sessionId === 'string' ? open.get(sessionId) : undefined;
    if (existing) {
      if (existing.keyId !== actor.keyId) return rpcError(res, 403, -32001, 'Error: forbidden: this MCP session belongs to another key.');
      if (existing.sessionId !== actor.sessionId) return rpcError(res, 403, -32001, 'Error: forbidden: this MCP session belongs to another session.');
      existing.lastSeen = Date.now();
      return existing.transport.handleRequest(req, res);
    }
    // An unknown session id (closed, or lost when the server restarted) is a 404, so the client initializes anew
    // (MCP streamable HTTP, session management); no session id at all is a 400.
    const noSession = () =>
      typeof sessionId === 'string'
        ? rpcError(res, 404, -32001, 'Error: MCP session not found (closed or the server restarted); initialize a new one.')
        : rpcError(res, 400, -32000, 'Error: no such MCP session; initialize first.');
    if (req.method !== 'POST') return noSession();
    let body: unknown;
    try {
      body = await readJson(req);
    } catch (error) {
      if (error instanceof BodyTooLarge) return rpcError(res, 413, -32600, 'Error: the request body is larger than 4 MB.');
      return rpcError(res, 400, -32700, 'Error: the request body is not valid JSON.');
    }
    const [{ StreamableHTTPServerTransport }, { isInitializeRequest }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
    if (!isInitializeRequest(body)) return noSession();
    const api = callerApi(services, await sessionToken(actor, token ?? ''));
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void open.set(id, { transport, keyId: actor.keyId, sessionId: actor.sessionId, lastSeen: Date.now() }),
    });
    transport.onclose = () => {
      if (transport.sessionId) open.delete(transport.sessionId);
    };
    await (await createMcpServer(api, errorText, kit)).connect(transport);
    await transport.handleRequest(req, res, body);
  }

  return {
    handle: (req: IncomingMessage, res: ServerResponse) =>
      handle(req, res).catch((error) => {
        services.log.error({ err: error }, 'mcp request failed');
        if (!res.headersSent) rpcError(res, 500, -32603, 'Error: internal server error.');
      }),
    async close() {
      await Promise.all([...open.values()].map((s) => s.transport.close()));
      open.clear();
    },
  };
}
