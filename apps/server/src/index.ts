// Public surface of @agent-tasks/server for clients and tests: the router types and the app factory.
export type { AppRouter, RouterInputs, RouterOutputs } from './routers/root.ts';
export { startApp, type App, type AppOptions } from './app.ts';
// For the bench's baseline of a no-op mutation on the same HTTP stack.
export { admitted } from './http/admission.ts';
export { createHttpApp } from './http/http-app.ts';
export { inFlightRequests } from './http/in-flight.ts';
export { requestPipeline } from './http/request-pipeline.ts';
export { createLogger } from './logger.ts';
// For tests that run the app in process with the settings the command would read from the environment.
export { type Config, ConfigError, DEFAULT_WORKERS, loadConfig } from './config.ts';
export { publicProcedure, router } from './trpc.ts';
