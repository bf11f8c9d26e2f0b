// The body limit on /trpc without building a web Request: a body the front door already read whole (bounded there) or
// one whose Content-Length says its size is judged from that; only a streamed body of unknown size is counted as it is
// read (Hono's bodyLimit). Hono's middleware alone reads `request.body`, which builds a full WHATWG Request per call.
import type { IncomingMessage } from 'node:http';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';

export function boundedBody(maxSize: number, onError: (c: Context) => Response): MiddlewareHandler {
  const streamed: MiddlewareHandler = bodyLimit({ maxSize, onError });
  return (c, next) => {
    const incoming = (c.env as { incoming?: IncomingMessage & { rawBody?: unknown } } | undefined)?.incoming;
    if (incoming) {
      if (incoming.rawBody instanceof Buffer) return incoming.rawBody.length > maxSize ? Promise.resolve(onError(c)) : next();
      const declared = incoming.headers['content-length'];
      if (incoming.headers['transfer-encoding'] === undefined) {
        if (declared === undefined) return next();
        return Number.parseInt(declared, 10) > maxSize ? Promise.resolve(onError(c)) : next();
      }
    }
    return streamed(c, next);
  };
}
