// A single query or mutation answered here, byte for byte as tRPC's fetch handler answers it, without that handler's
// per-call machinery (a URL parse, three abort signals combined, Headers objects, a context manager, copies of the
// options); anything else about the request (a batch, a stream, another content type, input that is not JSON, a path or
// method tRPC would refuse) is left to tRPC's handler. The procedure itself runs through tRPC: its middlewares,
// contracts, error formatter and status codes.
import type { IncomingMessage } from 'node:http';
import { type AnyTRPCProcedure, type AnyTRPCRouter, type TRPCError, getTRPCErrorFromUnknown, getTRPCErrorShape } from '@trpc/server';
import { getHTTPStatusCode } from '@trpc/server/http';
import type { Context } from 'hono';
import type { InnerContext } from '../context.ts';
import type { AppEnv } from './http-app.ts';
import { NOT_JSON, jsonOf } from './json-text.ts';
import { jsonPiecesWithKnown, utf8Of } from '../known-json.ts';

export interface PlainCallOptions {
  router: AnyTRPCRouter;
  /** The call's context, as tRPC's handler would create it for this request (its Authorization header given). */
  createContext(c: Context<AppEnv>, authorization: string | undefined): InnerContext;
  /** As tRPC's handler's `onError`: a failed call, told before its answer is made. */
  onError(opts: { error: TRPCError; ctx: InnerContext; path: string; input: unknown; type: string }): void;
  /** As tRPC's handler's `responseMeta`: headers for an answer, from the call's errors. */
  responseMeta(opts: { errors: TRPCError[] }): { headers?: Record<string, string> };
  /** The JSON text of an answer kept for reuse (made once), or undefined: then the answer is serialised here. */
  answerText?: (data: unknown) => string | undefined;
}

/** Not answered here: the request goes on to tRPC's handler (`bodyRead`: its body was read, from Hono's cache then). */
export type NotPlain = { bodyRead: boolean };

/** Characters from which an answer is sent as bytes (below, a text costs Node no more than its bytes would). */
const LONG_ANSWER = 4_096;

/** Procedure paths of the API (`todos.write`); anything else (escapes, a batch's commas, slashes) is tRPC's to read. */
const PLAIN_PATH = /^\/trpc\/[A-Za-z0-9_.]+$/;

/** tRPC's test of a JSON request (`hasContentType`): the media type, case-insensitive, without its parameters. */
const isJson = (contentType: string | undefined) => contentType?.toLowerCase().split(';', 1)[0]?.trim() === 'application/json';

/** Whether the router's transformer passes values as they are (tRPC's default): the answers here assume it. */
function passesValuesAsIs(router: AnyTRPCRouter): boolean {
  const { transformer } = router._def._config as { transformer: { input: Transform; output: Transform } };
  const probe = {};
  return transformer.input.deserialize(probe) === probe && transformer.output.serialize(probe) === probe;
}
type Transform = { serialize(value: unknown): unknown; deserialize(value: unknown): unknown };

export function plainCalls(options: PlainCallOptions): (c: Context<AppEnv>) => Promise<Response | NotPlain> {
  const { router } = options;
  const config = router._def._config;
  const procedures = router._def.procedures as Record<string, AnyTRPCProcedure | undefined>;
  const enabled = passesValuesAsIs(router);
  const notPlain: NotPlain = { bodyRead: false };

  return async (c) => {
    const method = c.req.method;
    const request = c.req.raw;
    if (!enabled || (method !== 'GET' && method !== 'POST')) return notPlain;
    const url = request.url;
    const pathStart = url.indexOf('/', url.indexOf('//') + 2);
    const queryStart = url.indexOf('?', pathStart);
    const pathname = queryStart === -1 ? url.slice(pathStart) : url.slice(pathStart, queryStart);
    if (!PLAIN_PATH.test(pathname)) return notPlain;
    const path = pathname.slice('/trpc/'.length);
    const procedure = Object.hasOwn(procedures, path) ? procedures[path] : undefined;
    if (!procedure) return notPlain;
    const type = procedure._def.type;
    if (type === 'query' ? method !== 'GET' : type === 'mutation' ? method !== 'POST' : true) return notPlain;

    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    const header = (name: string): string | undefined => {
      if (incoming) {
        const value = incoming.headers[name];
        return Array.isArray(value) ? value.join(', ') : value;
      }
      return request.headers.get(name) ?? undefined;
    };
    // A stream asked for (httpBatchStreamLink) is tRPC's to answer or refuse.
    const accept = header('accept');
    if (header('trpc-accept') !== undefined || (accept !== undefined && accept.split(',').some((t) => t.trim() === 'application/jsonl')))
      return notPlain;

    let input: unknown;
    let bodyRead = false;
    if (method === 'GET') {
      const contentType = header('content-type');
      if (contentType !== undefined && !isJson(contentType)) return notPlain;
      if (queryStart !== -1) {
        // Only `?input=…`, read as tRPC reads it (URLSearchParams: `+` is a space); an empty input is none.
        const params = new URLSearchParams(url.slice(queryStart + 1));
        if (params.size !== 1 || !params.has('input')) return notPlain;
        const text = params.get('input') as string;
        if (text !== '') input = jsonOf(text);
      }
    } else {
      if (queryStart !== -1 || !isJson(header('content-type'))) return notPlain;
      const text = await c.req.text();
      bodyRead = true;
      if (text !== '') input = jsonOf(text);
    }
    // Input that is not JSON: tRPC's handler words the refusal.
    if (input === NOT_JSON) return { bodyRead };

    const ctx = options.createContext(c, header('authorization'));
    let body: { result: { data: unknown } } | { error: unknown };
    let text: string | undefined;
    let status = 200;
    const headers: Record<string, string> = { vary: 'trpc-accept, accept', 'content-type': 'application/json' };
    try {
      const data: unknown = await procedure({
        path,
        getRawInput: () => Promise.resolve(input),
        ctx,
        type,
        signal: request.signal,
        batchIndex: 0,
      });
      body = { result: { data } };
      const kept = options.answerText?.(data);
      if (kept !== undefined) text = `{"result":{"data":${kept}}}`;
    } catch (cause) {
      const error = getTRPCErrorFromUnknown(cause);
      options.onError({ error, ctx, path, input, type });
      body = { error: getTRPCErrorShape({ config, ctx, error, input, path, type }) };
      status = getHTTPStatusCode(body as Parameters<typeof getHTTPStatusCode>[0], [error]);
      Object.assign(headers, options.responseMeta({ errors: [error] }).headers);
    }
    // tRPC's transformTRPCResponse, with a transformer that passes values as they are: the body as it is (an answer
    // holding a value whose text is known, a run's checklist, takes that text: known-json.ts).
    const data = 'result' in body ? body.result.data : undefined;
    const known = text === undefined && data !== undefined ? jsonPiecesWithKnown(data) : undefined;
    // Data whose JSON is nothing (a function, a `toJSON` that returns undefined) is left out, as JSON.stringify does.
    const pieces =
      text !== undefined ? [text] : known && known[0] !== undefined ? ['{"result":{"data":', ...known, '}}'] : [JSON.stringify(body)];
    let length = 0;
    for (const piece of pieces) length += piece.length;
    // A long answer goes as its bytes: encoded once, piece by piece, its length known, and written apart from the head
    // (Node joins a text body to the head's text before encoding both; @hono/node-server measures a text's bytes in a
    // pass of its own).
    return c.body(length < LONG_ANSWER ? pieces.join('') : utf8Of(pieces), status as 200, headers);
  };
}
