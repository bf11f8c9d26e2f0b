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
import type { McpSessionRegistry, OpenMcpSession } from './mcp-sessions.ts';

const createCaller = createCallerFactory(appRouter);

/** The tool kit's calls, made in-process through the routers (same validation, auth and errors as over HTTP). */
function callerApi(services: Services, token: string): ToolApi {
  const caller = createCaller(createInnerContext(services, token));
  return { todo: caller.todo, task: caller.task, run: caller.run };
}

/**
 * The same calls with the session token found on the first call: an API key's MCP session opens its agent session
 * only when a tool first needs it, so sessions that are opened and dropped leave no row behind.
 */
function lazyCallerApi(services: Services, token: () => Promise<string>): ToolApi {
  let api: Promise<ToolApi> | undefined;
  const resolved = () => (api ??= token().then((t) => callerApi(services, t)));
  const router = (name: keyof ToolApi) =>
    new Proxy({}, { get: (_, procedure: string) => async (input: unknown) => ((await resolved())[name] as Record<string, (i: unknown) => unknown>)[procedure]?.(input) });
  return { todo: router('todo'), task: router('task'), run: router('run') } as unknown as ToolApi;
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

/**
 * Closes an MCP session's leftovers: the agent session opened for it is removed when it recorded nothing, and the
 * live streams acting as it end.
 */
export async function closeMcpSession(services: Services, session: OpenMcpSession) {
  if (!session.opened) return;
  await sessions.removeUnusedSession(services.deps, { workspaceId: session.workspaceId, id: session.opened.id });
}

export function createMcpEndpoint(services: Services, open: McpSessionRegistry, kit: McpKit = agentTasksKit) {
  async function handle(req: IncomingMessage, res: ServerResponse) {
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
      return existing.handle(req, res);
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
    const place = open.reserve(actor.keyId);
    if ('refusal' in place) {
      res.setHeader('retry-after', String(Math.max(1, Math.ceil(open.limits.idleMs / 1000))));
      return rpcError(res, 429, -32001, place.refusal);
    }
    const session: OpenMcpSession = {
      keyId: actor.keyId,
      workspaceId: actor.workspaceId,
      sessionId: actor.sessionId,
      opened: null,
      lastSeen: Date.now(),
      handle: (request, response) => transport.handleRequest(request, response),
      close: () => transport.close(),
    };
    // The session token the tools act with: the caller's own, or an agent session opened for an API key when first needed.
    const api =
      actor.sessionId || actor.role === 'viewer'
        ? callerApi(services, token ?? '')
        : lazyCallerApi(services, async () => {
            const opened = await sessions.openSession(services.deps, actor, { title: 'MCP session' });
            session.opened = { id: opened.session.id };
            return opened.token;
          });
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        open.add(id, session);
        place.release();
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) open.closed(transport.sessionId);
    };
    try {
      await (await createMcpServer(api, errorText, kit)).connect(transport);
      await transport.handleRequest(req, res, body);
    } finally {
      place.release(); // a session that never initialized gives its place back
    }
  }

  return {
    handle: (req: IncomingMessage, res: ServerResponse) =>
      handle(req, res).catch((error) => {
        services.log.error({ err: error }, 'mcp request failed');
        if (!res.headersSent) rpcError(res, 500, -32603, 'Error: internal server error.');
      }),
    async close() {
      await open.closeAll();
    },
  };
}
