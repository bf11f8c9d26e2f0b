// MCP over streamable HTTP (/mcp, and the moira tools at /mcp/moira), behind the same bearer auth; an API key gets its
// own agent session per MCP session. MCP sessions are kept in the database, so whichever worker a request lands on
// serves it (a worker that has not seen the session yet resumes it).
import { randomUUID } from 'node:crypto';
import { type Actor, type ToolApi, isDomainError, sessions } from '@agent-tasks/core';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { TRPCError } from '@trpc/server';
import { type Services, bearerToken, createInnerContext } from '../context.ts';
import { BUSY_MESSAGE, isDatabaseBusy } from '../db/busy.ts';
import type { McpSessionRecord, McpSessionRepository } from '../repositories/prisma-mcp-session-repository.ts';
import { appRouter } from '../routers/root.ts';
import { createCallerFactory } from '../trpc.ts';
import { type McpKit, agentTasksKit, createMcpServer } from './mcp-server.ts';

const createCaller = createCallerFactory(appRouter);

/** The tool kit's calls, made in-process through the routers (same validation, auth and errors as over HTTP). */
function callerApi(services: Services, caller: Actor): ToolApi {
  const api = createCaller(createInnerContext(services, null, { id: 'mcp' }, caller));
  return { todo: api.todo, task: api.task, run: api.run };
}

function errorText(error: unknown): string {
  const cause = error instanceof TRPCError ? error.cause : error;
  if (isDomainError(cause)) return cause.message;
  if (isDatabaseBusy(cause)) return BUSY_MESSAGE;
  return 'Error: internal server error.';
}

/** A JSON-RPC error answer outside any MCP session (auth, session lookup, body). */
const rpcError = (status: number, code: number, message: string) =>
  Response.json({ jsonrpc: '2.0', error: { code, message }, id: null }, { status });

/** The largest initialize request read (the MCP SDK's transport reads later messages with the same 4 MB limit). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

class BodyTooLarge extends Error {}

async function readJson(request: Request): Promise<unknown> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  // past the limit the rest is drained, not kept, so the client still reads the 413
  for await (const chunk of request.body ?? []) {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  if (size > MAX_BODY_BYTES) throw new BodyTooLarge();
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

/** MCP sessions idle this long are closed (clients that never send DELETE would otherwise pile up). */
const IDLE_MS = 60 * 60 * 1000;
/** How often a session's last use is written down (not on every request). */
const TOUCH_MS = 60 * 1000;

interface Served {
  transport: WebStandardStreamableHTTPServerTransport;
  touchedAt: number;
}

export function createMcpEndpoint(services: Services, store: McpSessionRepository, kit: McpKit = agentTasksKit) {
  /** The transports this process holds, by MCP session id. */
  const served = new Map<string, Served>();
  const now = () => services.deps.clock.now();

  const drop = (id: string) => {
    const held = served.get(id);
    served.delete(id);
    if (held) void held.transport.close();
  };

  /** Whom the tools act as: the agent session opened for this MCP session's API key, else the caller. */
  async function toolActor(record: McpSessionRecord, caller: Actor): Promise<Actor> {
    if (!record.agentSessionId) return caller;
    const session = await services.deps.store.sessions.get(record.workspaceId, record.agentSessionId);
    if (!session) throw new Error(`MCP session ${record.id}: its agent session ${record.agentSessionId} is gone`);
    return { workspaceId: session.workspaceId, role: 'agent', keyId: record.keyId, sessionId: session.id, agentName: session.agentName ?? session.id };
  }

  async function transportFor(record: McpSessionRecord, caller: Actor, resume: boolean) {
    const [{ WebStandardStreamableHTTPServerTransport }, { LATEST_PROTOCOL_VERSION }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
      import('@modelcontextprotocol/sdk/types.js'),
    ]);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => record.id });
    transport.onclose = () => {
      if (served.get(record.id)?.transport === transport) served.delete(record.id);
    };
    await (await createMcpServer(callerApi(services, await toolActor(record, caller)), errorText, kit)).connect(transport);
    if (resume) {
      // The client initialized this session through another worker (or before a restart): this transport is
      // brought to the same state by an initialize of its own, whose answer nobody reads.
      const answer = await transport.handleRequest(
        new Request('http://localhost/mcp', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 0,
            method: 'initialize',
            params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: 'agent-tasks resume', version: '1' } },
          }),
        }),
      );
      await answer.text();
    }
    served.set(record.id, { transport, touchedAt: Date.now() });
    return transport;
  }

  async function open(request: Request, caller: Actor, body: unknown) {
    let agentSessionId: string | null = null;
    if (!caller.sessionId && caller.role !== 'viewer') {
      agentSessionId = (await sessions.openSession(services.deps, caller, { title: 'MCP session' })).session.id;
    }
    const at = now();
    const record: McpSessionRecord = {
      id: randomUUID(),
      workspaceId: caller.workspaceId,
      keyId: caller.keyId,
      callerSessionId: caller.sessionId,
      agentSessionId,
      server: kit.name,
      createdAt: at,
      lastSeenAt: at,
      closedAt: null,
    };
    await store.create(record);
    const transport = await transportFor(record, caller, false);
    return transport.handleRequest(request, { parsedBody: body });
  }

  async function handle(request: Request): Promise<Response> {
    const token = bearerToken(request.headers.get('authorization'));
    let caller: Actor;
    try {
      caller = await services.actors.resolve(token);
    } catch (error) {
      return rpcError(401, -32001, isDomainError(error) ? error.message : 'Error: unauthorized.');
    }
    const sessionId = request.headers.get('mcp-session-id');
    const record = sessionId ? await store.get(sessionId) : null;
    // A session of the other MCP server (/mcp and /mcp/moira share the table) is not one of ours.
    const live =
      record && record.server === kit.name && record.closedAt === null && record.lastSeenAt.getTime() > Date.now() - IDLE_MS
        ? record
        : null;
    if (sessionId && !live) drop(sessionId);
    if (live) {
      if (live.keyId !== caller.keyId) return rpcError(403, -32001, 'Error: forbidden: this MCP session belongs to another key.');
      if (live.callerSessionId !== caller.sessionId) return rpcError(403, -32001, 'Error: forbidden: this MCP session belongs to another session.');
      const held = served.get(live.id);
      const transport = held?.transport ?? (await transportFor(live, caller, true));
      if (held && Date.now() - held.touchedAt > TOUCH_MS) {
        held.touchedAt = Date.now();
        await store.touch(live.id, now());
      }
      if (request.method === 'DELETE') {
        await store.close(live.id, now());
        const answer = await transport.handleRequest(request);
        served.delete(live.id);
        return answer;
      }
      return transport.handleRequest(request);
    }
    // An unknown MCP session (closed, idle too long, or never opened) is a 404, so the client initializes anew
    // (MCP streamable HTTP, session management); no session id at all is a 400.
    const noSession = () =>
      sessionId
        ? rpcError(404, -32001, 'Error: MCP session not found (closed or idle too long); initialize a new one.')
        : rpcError(400, -32000, 'Error: no such MCP session; initialize first.');
    if (request.method !== 'POST') return noSession();
    let body: unknown;
    try {
      body = await readJson(request);
    } catch (error) {
      if (error instanceof BodyTooLarge) return rpcError(413, -32600, 'Error: the request body is larger than 4 MB.');
      return rpcError(400, -32700, 'Error: the request body is not valid JSON.');
    }
    const { isInitializeRequest } = await import('@modelcontextprotocol/sdk/types.js');
    if (!isInitializeRequest(body)) return noSession();
    return open(request, caller, body);
  }

  return {
    handle: (request: Request): Promise<Response> =>
      handle(request).catch((error: unknown) => {
        if (isDatabaseBusy(error)) return rpcError(503, -32603, BUSY_MESSAGE);
        services.log.error({ err: error }, 'mcp request failed');
        return rpcError(500, -32603, 'Error: internal server error.');
      }),
    /** Closes the transports this process holds (the sessions stay open for the other workers, or a restart). */
    async close() {
      await Promise.all([...served.values()].map((s) => s.transport.close()));
      served.clear();
    },
  };
}
