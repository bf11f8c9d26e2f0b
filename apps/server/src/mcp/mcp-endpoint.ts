// MCP over streamable HTTP (/mcp, and the moira tools at /mcp/moira), behind the same bearer auth; an API key gets its
// own agent session per MCP session, opened when a tool first needs it. MCP sessions are kept in the database, so
// whichever worker a request lands on serves it (a worker that has not seen the session yet resumes it); they are
// capped per key, per workspace and in all (429 past one; at the total a workspace below its share gets in by closing the
// least recently used session of one over its share) and closed when idle, their empty agent sessions removed with them.
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import {
  type Actor,
  type ToolApi,
  can,
  isDomainError,
  isStoreUnavailable,
  sessionActor,
  sessions,
  toolApiOf,
  toolCalls,
} from '@agent-tasks/core';
import type { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { authenticate } from '../auth/authenticate.ts';
import { type Services, bearerToken, createInnerContext } from '../context.ts';
import { type Answer, answerFor, answerHeaders, jsonRpcErrorBody, refusal, transportRefusals } from '../error-map.ts';
import {
  McpOpenAbandoned,
  type McpSessionCaps,
  type McpSessionRecord,
  type McpSessionRepository,
} from '../repositories/prisma-mcp-session-repository.ts';
import { appRouter } from '../routers/root.ts';
import { createCallerFactory } from '../trpc.ts';
import { mcpMessageRefusal } from './mcp-message-guard.ts';
import { type McpKit, agentTasksKit, createMcpServer } from './mcp-server.ts';

const createCaller = createCallerFactory(appRouter);

/** The tool kit's calls, made in-process through the routers (same validation, auth and errors as over HTTP). */
function callerApi(services: Services, caller: Actor): ToolApi {
  return toolApiOf(createCaller(createInnerContext(services, null, { id: 'mcp' }, undefined, caller)));
}

/** The same calls, with the actor found on the first call (an API key's agent session is opened only when needed). */
function lazyCallerApi(services: Services, actor: () => Promise<Actor>): ToolApi {
  let api: Promise<ToolApi> | undefined;
  const resolved = () =>
    (api ??= actor().then(
      (a) => callerApi(services, a),
      (error: unknown) => {
        api = undefined;
        throw error;
      },
    ));
  const group = (name: keyof ToolApi) =>
    Object.fromEntries(
      Object.keys(toolCalls[name]).map((procedure) => [
        procedure,
        async (input: unknown) => ((await resolved())[name] as unknown as Record<string, (i: unknown) => unknown>)[procedure]?.(input),
      ]),
    );
  return Object.fromEntries(Object.keys(toolCalls).map((name) => [name, group(name as keyof ToolApi)])) as unknown as ToolApi;
}

/** The error boundary's answer as a JSON-RPC error outside any MCP session (auth, session lookup, body), with its headers. */
const rpcError = (answer: Answer, code = answer.status >= 500 ? -32603 : -32001) =>
  Response.json(jsonRpcErrorBody(answer, code), { status: answer.status, headers: answerHeaders(answer) });

/** The log's words for a store that could not take the call (as the HTTP layer's). */
const unavailable = { busy: 'database busy', unreachable: 'database does not answer' } as const;

/** The HTTP request an MCP request is served for (its id names a fault in the answer and the log). */
const current = new AsyncLocalStorage<string>();

/** The largest MCP request body read (every POST is read here, checked, then handed to the MCP SDK parsed). */
const MAX_BODY_BYTES = 4 * 1024 * 1024;

class BodyTooLarge extends Error {}

const notJson = () => refusal(400, 'Error: the request body is not valid JSON.', 'INVALID_INPUT');

/** The request's JSON body, or the answer to a body too large or not JSON. */
async function readBody(request: Request): Promise<{ body: unknown } | Response> {
  try {
    return { body: await readJson(request) };
  } catch (error) {
    if (error instanceof BodyTooLarge) return rpcError(transportRefusals.bodyTooLarge('4 MB'), -32600);
    return rpcError(notJson(), -32700);
  }
}

async function readJson(request: Request): Promise<unknown> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  // past the limit the rest is drained, not kept, so the client still reads the 413
  for await (const chunk of (request.body ?? []) as AsyncIterable<Uint8Array>) {
    size += chunk.length;
    if (size <= MAX_BODY_BYTES) chunks.push(chunk);
  }
  if (size > MAX_BODY_BYTES) throw new BodyTooLarge();
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? JSON.parse(text) : undefined;
}

/** Open MCP sessions: at most `perKey` per key, `perWorkspace` per workspace and `total` in all (each workspace keeps
 * its share of it); closed after `idleMs` without a request. */
export interface McpSessionLimits extends McpSessionCaps {
  idleMs: number;
}

interface Served {
  transport: WebStandardStreamableHTTPServerTransport;
  /** The last request this process served for the session. */
  usedAt: number;
  /** When that use was last written down (not on every request). */
  storedAt: number;
}

export function createMcpEndpoint(services: Services, store: McpSessionRepository, limits: McpSessionLimits, kit: McpKit = agentTasksKit) {
  /** The transports this process holds, by MCP session id. */
  const served = new Map<string, Served>();
  const now = () => services.deps.clock.now();
  const touchMs = Math.min(60_000, Math.floor(limits.idleMs / 4));
  const idleSeconds = Math.round(limits.idleMs / 1000);

  /** A tool call's refusal, as the tool's error text: the boundary's answer; a fault is logged under the request's id. */
  const errorText = (error: unknown): string => {
    const requestId = current.getStore();
    const answer = answerFor(error, { requestId });
    if (answer.status === 500) services.log.error({ req: requestId, err: error }, 'unexpected error');
    return answer.text;
  };

  /** Cleans up after a session whose row this process removed: its transport, and its agent session if unused. */
  async function closed(record: McpSessionRecord) {
    drop(record.id);
    if (record.agentSessionId)
      await sessions.removeUnusedSession(services.deps, { workspaceId: record.workspaceId, id: record.agentSessionId });
  }

  // Idle sessions close: this process's transports, and every worker's rows (whoever removes a row cleans up after it).
  let sweeping = false;
  const sweep = setInterval(
    () => {
      if (sweeping) return;
      sweeping = true;
      const cutoff = now().getTime() - limits.idleMs;
      for (const [id, held] of served) if (held.usedAt <= cutoff) drop(id);
      (async () => {
        for (const record of await store.stale(kit.name, new Date(cutoff))) {
          const removed = await store.remove(record.id);
          if (removed) await closed(removed);
        }
      })()
        .catch((error: unknown) => services.log.warn({ err: error }, 'closing idle MCP sessions failed'))
        .finally(() => (sweeping = false));
    },
    Math.max(250, Math.min(30_000, Math.floor(limits.idleMs / 4))),
  );
  sweep.unref();

  const drop = (id: string) => {
    const held = served.get(id);
    served.delete(id);
    if (held) void held.transport.close();
  };

  /** An API key that opens sessions (agent, admin) gets an agent session for its MCP session's tools; others act as themselves. */
  const needsAgentSession = (caller: Actor) => !caller.sessionId && can(caller, 'openSessions');

  /**
   * Whom the tools act as: the agent session of this MCP session's API key — opened now when no request has needed
   * one yet (recorded only if no other request, in any worker, recorded one first) —, else the caller.
   */
  async function toolActor(id: string, caller: Actor): Promise<Actor> {
    if (!needsAgentSession(caller)) return caller;
    const record = await store.get(id);
    if (!record) throw new Error(`MCP session ${id} is gone`);
    let agentSessionId = record.agentSessionId;
    if (!agentSessionId) {
      const opened = (await sessions.open(services.deps, caller, { title: 'MCP session' })).session.id;
      if (await store.setAgentSession(id, opened)) agentSessionId = opened;
      else {
        await sessions.removeUnusedSession(services.deps, { workspaceId: caller.workspaceId, id: opened });
        agentSessionId = (await store.get(id))?.agentSessionId ?? null;
        if (!agentSessionId) throw new Error(`MCP session ${id} is gone`);
      }
    }
    const session = await services.deps.store.sessions.get(record.workspaceId, agentSessionId);
    if (!session) throw new Error(`MCP session ${record.id}: its agent session ${agentSessionId} is gone`);
    return sessionActor(session, record.keyId);
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
    const api = needsAgentSession(caller) ? lazyCallerApi(services, () => toolActor(record.id, caller)) : callerApi(services, caller);
    await (await createMcpServer(api, errorText, kit)).connect(transport);
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
            params: {
              protocolVersion: LATEST_PROTOCOL_VERSION,
              capabilities: {},
              clientInfo: { name: 'agent-tasks resume', version: '1' },
            },
          }),
        }),
      );
      await answer.text();
    }
    served.set(record.id, { transport, usedAt: now().getTime(), storedAt: now().getTime() });
    return transport;
  }

  async function open(request: Request, caller: Actor, body: unknown) {
    const at = now();
    const record: McpSessionRecord = {
      id: randomUUID(),
      workspaceId: caller.workspaceId,
      keyId: caller.keyId,
      callerSessionId: caller.sessionId,
      agentSessionId: null,
      server: kit.name,
      createdAt: at,
      lastSeenAt: at,
      closedAt: null,
    };
    const placed = await store.open(record, limits, new Date(at.getTime() - limits.idleMs), request.signal);
    if (!placed.opened) {
      const message =
        placed.over === 'key'
          ? `Error: too many open MCP sessions for this key (${placed.count}, at most ${limits.perKey}); end one with DELETE /mcp, or wait: idle ones close after ${idleSeconds} s.`
          : placed.over === 'workspace'
            ? `Error: too many open MCP sessions for this workspace (${placed.count}, at most ${limits.perWorkspace}); end one with DELETE /mcp, or wait: idle ones close after ${idleSeconds} s.`
            : `Error: the server has too many open MCP sessions (${placed.count}); try again shortly.`;
      return rpcError({ ...refusal(429, message, 'RATE_LIMITED'), retryAfter: Math.max(1, Math.min(idleSeconds, 60)) });
    }
    if (placed.closed) {
      // Room made for a workspace below its share: the other workspace's least recently used session is gone (its next
      // request is a 404, so its client initializes anew).
      services.log.info(
        { mcpSession: placed.closed.id, workspace: placed.closed.workspaceId, for: caller.workspaceId },
        'MCP sessions full: closed the least recently used session of a workspace over its share',
      );
      await closed(placed.closed);
    }
    const transport = await transportFor(record, caller, false);
    return transport.handleRequest(request, { parsedBody: body });
  }

  async function handle(request: Request, address: string | undefined): Promise<Response> {
    const token = bearerToken(request.headers.get('authorization'));
    let caller: Actor;
    try {
      caller = await authenticate(services, address, { token });
    } catch (error) {
      // Refused (401, or 429 past the brake), or the store unavailable (503): the boundary's answer; a fault is thrown on.
      if (!isDomainError(error)) throw error;
      return rpcError(answerFor(error));
    }
    const sessionId = request.headers.get('mcp-session-id');
    const record = sessionId ? await store.get(sessionId) : null;
    // A session of the other MCP server (/mcp and /mcp/moira share the table) is not one of ours.
    const live =
      record && record.server === kit.name && record.closedAt === null && record.lastSeenAt.getTime() > now().getTime() - limits.idleMs
        ? record
        : null;
    if (sessionId && !live) drop(sessionId);
    if (live) {
      if (live.keyId !== caller.keyId)
        return rpcError(refusal(403, 'Error: forbidden: this MCP session belongs to another key.', 'FORBIDDEN'));
      if (live.callerSessionId !== caller.sessionId)
        return rpcError(refusal(403, 'Error: forbidden: this MCP session belongs to another session.', 'FORBIDDEN'));
      const held = served.get(live.id);
      const transport = held?.transport ?? (await transportFor(live, caller, true));
      if (held) {
        held.usedAt = now().getTime();
        if (held.usedAt - held.storedAt > touchMs) {
          held.storedAt = held.usedAt;
          await store.touch(live.id, now());
        }
      }
      if (request.method === 'DELETE') {
        const answer = await transport.handleRequest(request);
        const removed = await store.remove(live.id);
        if (removed) await closed(removed);
        return answer;
      }
      if (request.method !== 'POST') return transport.handleRequest(request);
      const read = await readBody(request);
      if (read instanceof Response) return read;
      if (read.body === undefined) return rpcError(notJson(), -32700);
      return mcpMessageRefusal(read.body) ?? transport.handleRequest(request, { parsedBody: read.body });
    }
    // An unknown MCP session (closed, idle too long, or never opened) is a 404, so the client initializes anew
    // (MCP streamable HTTP, session management); no session id at all is a 400.
    const noSession = () =>
      sessionId
        ? rpcError(refusal(404, 'Error: MCP session not found (closed or idle too long); initialize a new one.', 'NOT_FOUND'))
        : rpcError(refusal(400, 'Error: no such MCP session; initialize first.', 'INVALID_INPUT'), -32000);
    if (request.method !== 'POST') return noSession();
    const read = await readBody(request);
    if (read instanceof Response) return read;
    const { isInitializeRequest } = await import('@modelcontextprotocol/sdk/types.js');
    if (!isInitializeRequest(read.body)) return noSession();
    return mcpMessageRefusal(read.body) ?? open(request, caller, read.body);
  }

  return {
    handle: (request: Request, address?: string, requestId: string = randomUUID()): Promise<Response> =>
      current.run(requestId, () =>
        handle(request, address).catch((error: unknown) => {
          // Nobody reads this answer (its client went away while the open waited its turn): nginx's 499, nothing opened.
          if (error instanceof McpOpenAbandoned) {
            services.log.info({ req: requestId }, 'MCP open abandoned by its client before its turn: nothing opened');
            return new Response(null, { status: 499 });
          }
          // The boundary's answer: the store unavailable is 503 with Retry-After, as over tRPC; anything else a fault.
          const answer = answerFor(error, { requestId });
          if (answer.status === 500) services.log.error({ req: requestId, err: error }, 'mcp request failed');
          else if (isStoreUnavailable(error))
            services.log.warn({ req: requestId, route: new URL(request.url).pathname }, `${unavailable[error.reason]}: answered 503`);
          return rpcError(answer);
        }),
      ),
    /** Closes the transports this process holds (the sessions stay open for the other workers, or a restart). */
    async close() {
      clearInterval(sweep);
      await Promise.all([...served.values()].map((s) => s.transport.close()));
      served.clear();
    },
  };
}
