// The `@agent-tasks/sdk/cli` entry: the command lines the package's bins run — `runAgentTasksCli` (the `agent-tasks`
// client command) and `runTasksCli` (task files: `agent-tasks-files`, `agent-tasks tasks`) — and oh-my-opencode's folder.
export { runAgentTasksCli } from './agent-tasks-cli.ts';
export { runTasksCli, type TasksCliOptions } from './tasks-cli.ts';
export { opencodeConfigDir, opencodeTaskFolder, opencodeTaskListId, sisyphusTasksConfig } from './opencode-task-folder.ts';
