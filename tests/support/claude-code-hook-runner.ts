// Runs the Claude Code hook handler as its own process (stdin in, stdout/stderr out, exit code), the way the
// `agent-tasks hook claude-code` command runs it; used by the tests until that command lands.
import { runClaudeCodeHook } from '@agent-tasks/sdk';

const code = await runClaudeCodeHook({ stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: process.env });
process.exit(code);
