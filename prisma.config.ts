// Prisma CLI configuration: schema and migrations paths; the native engine is replaced by our WASM-based commands.
import path from 'node:path';
import { defineConfig } from 'prisma/config';

process.env.PRISMA_SCHEMA_ENGINE_BINARY ??= path.join(import.meta.dirname, 'prisma', 'no-native-engine.cjs');

export default defineConfig({
  schema: path.join('prisma', 'schema.prisma'),
  migrations: { path: path.join('prisma', 'migrations') },
});
