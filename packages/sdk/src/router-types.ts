// The server's router as a client sees it: every procedure with its input and output, and the error shape. Taken by a
// type-only import of the server package's `router` export (a workspace dev dependency of the root: the SDK declares
// none, as the server depends on the SDK); the published bundle inlines it.
import type { AnyProcedure, TRPCBuiltRouter, inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter as ServerRouter } from '@agent-tasks/server/router';

/**
 * Never called: its inferred return type is the client router. The helper types are local to it, so the declaration
 * emitter cannot name them and writes the router out in full — without the server's request context (its logger, its
 * stores), which tRPC keeps on every router type but a client never sees.
 */
function _clientRouter() {
  type Types = ServerRouter['_def']['_config']['$types'];
  type ClientRecord<R> = { [K in keyof R]: R[K] extends AnyProcedure ? R[K] : ClientRecord<R[K]> };
  type Root = { ctx: object; meta: object; errorShape: Types['errorShape']; transformer: Types['transformer'] };
  return null as unknown as TRPCBuiltRouter<Root, ClientRecord<ServerRouter['_def']['record']>>;
}

export type AppRouter = ReturnType<typeof _clientRouter>;
export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;

type KindsOf<R> = { [K in keyof R]: R[K] extends AnyProcedure ? R[K]['_def']['type'] : KindsOf<R[K]> };
/** Every procedure's kind, nested by router: the type `procedures.ts` is held to. */
export type ProcedureKinds = KindsOf<AppRouter['_def']['record']>;
