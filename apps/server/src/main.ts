// Entry point of the `agent-tasks` command (built to dist/cli.js; `serve` when no subcommand is given).
import { runCli } from './cli/program.ts';

// `serve` keeps the process alive through its server; the other commands end when their work is done.
process.exitCode = await runCli(process.argv.slice(2));
