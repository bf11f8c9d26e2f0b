// Every procedure of the router by its path (`tasks.create`) with its kind: what the SDK's client methods are built
// from (`pnpm sdk:procedures` writes them into the SDK) and what the tests that walk every procedure read.
import type { AnyRouter } from '@trpc/server';
import { appRouter } from './root.ts';

export type ProcedureKind = 'query' | 'mutation' | 'subscription';

/** `{ 'tasks.create': 'mutation', … }` in the router's order. */
export function procedureKinds(router: AnyRouter = appRouter): Record<string, ProcedureKind> {
  const procedures = router._def.procedures as Record<string, { _def: { type: ProcedureKind } }>;
  return Object.fromEntries(Object.entries(procedures).map(([path, procedure]) => [path, procedure._def.type]));
}

/** The same, nested by router (`{ tasks: { create: 'mutation' } }`): the shape of the SDK's client. */
export function procedureTree(router: AnyRouter = appRouter) {
  const tree: Record<string, Record<string, ProcedureKind>> = {};
  for (const [path, kind] of Object.entries(procedureKinds(router))) {
    const [group, name] = path.split('.') as [string, string];
    (tree[group] ??= {})[name] = kind;
  }
  return tree;
}
