// The handle a PostgreSQL write transaction's work writes through: the writer's client, refusing every call once the
// transaction ended, and the calls still running then waited for before it ends, so none runs outside it or in the next.
import type { RawSql } from './direct-sql.ts';
import { useRawSql } from './direct-sql.ts';

export const ENDED = 'the write transaction this statement belongs to has already ended';

/**
 * The calls a transaction's work made on its handle. Before, the transaction a statement belonged to was known through
 * `AsyncLocalStorage`, which on Node 20 runs a hook on every promise the process makes.
 */
export class TransactionCalls {
  #ended = false;
  #running = 0;
  #waiting: (() => void)[] = [];

  /** A call begins: refused (false) once the transaction ended. */
  begin(): boolean {
    if (this.#ended) return false;
    this.#running++;
    return true;
  }

  done(): void {
    if (--this.#running > 0) return;
    const waiting = this.#waiting;
    this.#waiting = [];
    for (const resolve of waiting) resolve();
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Calls begun and not yet settled (a write refused with one running changed something, maybe). */
  get running(): number {
    return this.#running;
  }

  /** Resolves once no call is running. */
  settled(): Promise<void> {
    return this.#running === 0 ? Promise.resolve() : new Promise((resolve) => this.#waiting.push(resolve));
  }

  /** No call begins after this; resolves once those still running have settled (their statements inside it). */
  end(): Promise<void> {
    this.#ended = true;
    return this.settled();
  }
}

/** A refusal, answered to whoever awaits it; unawaited, it is no unhandled rejection (an unawaited Prisma call never ran). */
function refused(): Promise<never> {
  const refusal = Promise.reject(new Error(ENDED));
  refusal.catch(() => undefined);
  return refusal;
}

/** Prisma client members that send statements: the rest pass through, bound to the client. */
const SENDS = /^\$(?:transaction|queryRaw\w*|executeRaw\w*)$/;

/**
 * `client` as `calls` allow: a Prisma call (a model's query, `$transaction`, …) is refused once the transaction ended,
 * and counted while it runs (Prisma reaches the connection only after its own asynchronous work). Raw statements
 * (`rawSql(handle)`) are refused after the end too; they reach the connection at once, queued before COMMIT.
 */
export function transactionHandle<T extends object>(client: T, raw: RawSql, calls: TransactionCalls): T {
  const counted =
    (fn: (...args: unknown[]) => unknown, self: unknown) =>
    (...args: unknown[]): unknown => {
      if (!calls.begin()) return refused();
      let answer: unknown;
      try {
        answer = fn.apply(self, args);
      } catch (error) {
        calls.done();
        throw error;
      }
      if (typeof (answer as PromiseLike<unknown> | null)?.then !== 'function') {
        calls.done();
        return answer;
      }
      // Listening starts a Prisma query now (it runs when first awaited), and counts it until it settles; the answer
      // itself is handed back as it is (a PrismaPromise stays one).
      (answer as PromiseLike<unknown>).then(
        () => calls.done(),
        () => calls.done(),
      );
      return answer;
    };
  const delegateOf = (delegate: object) => {
    const methods = new Map<PropertyKey, unknown>();
    return new Proxy(delegate, {
      get(target, prop) {
        const value: unknown = Reflect.get(target, prop, target);
        if (typeof value !== 'function') return value;
        let method = methods.get(prop);
        if (!method) methods.set(prop, (method = counted(value as (...args: unknown[]) => unknown, target)));
        return method;
      },
    });
  };
  const members = new Map<PropertyKey, unknown>();
  const handle = new Proxy(client, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop, target);
      if (value === null || (typeof value !== 'function' && typeof value !== 'object')) return value;
      let member = members.get(prop);
      if (!member) {
        const fn = value as (...args: unknown[]) => unknown;
        member =
          typeof value === 'object'
            ? delegateOf(value) // a model: its every method is a query
            : typeof prop === 'string' && SENDS.test(prop)
              ? counted(fn, target)
              : fn.bind(target);
        members.set(prop, member);
      }
      return member;
    },
  });
  useRawSql(handle, {
    $queryRaw: (query, ...values) => (calls.ended ? refused() : raw.$queryRaw(query, ...values)),
    $executeRaw: (query, ...values) => (calls.ended ? refused() : raw.$executeRaw(query, ...values)),
  });
  return handle;
}
