// Node flags that run the workspace from its TypeScript sources: tsx as the loader, and the `@agent-tasks/source`
// export condition so `@agent-tasks/*` imports (and the SDK's bins) resolve to src/ instead of the built dist/.
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const repoRoot = path.resolve(import.meta.dirname, '../..');
const tsx = pathToFileURL(createRequire(path.join(repoRoot, 'package.json')).resolve('tsx')).href;

/** `node ...sourceNodeArgs file.js` works from any working directory. */
export const sourceNodeArgs = ['--conditions=@agent-tasks/source', '--import', tsx];
