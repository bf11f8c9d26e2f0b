// Public surface of @agent-tasks/server for clients and tests: the router types and the app factory.
export type { AppRouter, RouterInputs, RouterOutputs } from './routers/root.ts';
export { startApp, type App, type AppOptions } from './app.ts';
