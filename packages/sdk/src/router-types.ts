// The server's router types, taken by a relative type-only import: the SDK bundles them into its .d.ts and declares
// no dependency on the server package (which depends on the SDK for its CLI).
export type { AppRouter, RouterInputs, RouterOutputs } from '../../../apps/server/src/routers/root.ts';
