// CLI `pnpm sdk:procedures`: writes the router's procedures and their kinds into the SDK (packages/sdk/src/procedures.ts),
// which builds its client methods from them without importing the server.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { procedureTree } from './procedure-kinds.ts';

const target = fileURLToPath(new URL('../../../../packages/sdk/src/procedures.ts', import.meta.url));
const text = [
  "// Written by `pnpm sdk:procedures` from the server's router (do not edit): every procedure and its kind, from which",
  "// the client's methods are built. The type check holds it to the router: a missing, extra or changed one fails it.",
  "import type { ProcedureKinds } from './router-types.ts';",
  '',
  `export const procedures = ${JSON.stringify(procedureTree(), null, 2)} as const satisfies ProcedureKinds;`,
  '',
].join('\n');
writeFileSync(target, text);
console.log(`wrote ${target}`);
