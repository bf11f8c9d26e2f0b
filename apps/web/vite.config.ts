// Builds the dashboard into dist/ (assets under /assets/); in dev, proxies the API to a running server (AGENT_TASKS_URL).
import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig } from 'vite';

const api = process.env.AGENT_TASKS_URL ?? 'http://127.0.0.1:3000';

export default defineConfig({
  plugins: [react()],
  base: '/',
  // Workspace packages (the SDK's ticket link) from their sources, as the type check reads them.
  resolve: { conditions: ['@agent-tasks/source', ...defaultClientConditions] },
  build: { outDir: 'dist', assetsDir: 'assets', emptyOutDir: true, chunkSizeWarningLimit: 600 },
  server: {
    proxy: {
      '/trpc': api,
      '/runs': { target: api, bypass: (req) => (req.headers.accept?.includes('text/html') ? req.url : undefined) },
    },
  },
});
