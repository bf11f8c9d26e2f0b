// A program as another project writes it against the installed @agent-tasks/sdk: typed calls and the tool kit on a
// real server. sdk-package.test.ts copies it into a project outside the workspace, type-checks it strictly, compiles
// it and runs it with AGENT_TASKS_URL and AGENT_TASKS_TOKEN (an agent key); it prints one JSON line of what it saw.
import { agentTools, anthropicTools, createClient, createDispatcher, openAITools, openSessionClient } from '@agent-tasks/sdk';

const url = process.env.AGENT_TASKS_URL ?? '';
const token = process.env.AGENT_TASKS_TOKEN ?? '';
const listName = `installed-${Date.now().toString(36)}`;

const { session, client } = await openSessionClient(createClient({ url, token }), { title: 'installed SDK' });
const tools = agentTools(client);
const dispatch = createDispatcher(tools);
const openai = openAITools(tools);
const anthropic = anthropicTools(tools);

/** Calls the types refuse; never made. Each `@ts-expect-error` must meet an error, or tsc fails. */
export function wrongCalls() {
  // @ts-expect-error a todo's status is "pending", "in_progress" or "completed"
  void client.todos.write({ todos: [{ content: 'Ship it', status: 'done' }] });
  // @ts-expect-error a tool call's arguments are JSON text or an object
  void dispatch({ name: 'todo_write', arguments: 42 });
  // @ts-expect-error openSessionClient takes a client, not its options
  void openSessionClient({ url, token });
}

// 1. A todo list through the OpenAI shape: the arguments arrive as JSON text.
const todoAnswer = await dispatch({
  name: 'todo_write',
  arguments: JSON.stringify({
    todos: [
      { content: 'Install the SDK', status: 'completed' },
      { content: 'Use the SDK', status: 'in_progress' },
    ],
  }),
});
const todo = await client.todos.get();

// 2. A two-task graph through the Anthropic shape (the arguments arrive as an object): the second waits on the first.
const firstAnswer = await dispatch({ name: 'TaskCreate', arguments: { listName, subject: 'Build the package' } });
const firstId = /^Created (T-\S+)/.exec(firstAnswer)?.[1] ?? 'none';
const secondAnswer = await dispatch({ name: 'TaskCreate', arguments: { listName, subject: 'Install the package', blockedBy: [firstId] } });
const secondId = /^Created (T-\S+)/.exec(secondAnswer)?.[1] ?? 'none';
const tooEarly = await dispatch({ name: 'TaskUpdate', arguments: { listName, id: secondId, status: 'in_progress' } });
const graph = await client.tasks.list({ listName });

// 3. A checklist run through typed calls: prepare (no notification channel needed), execute, name, intake, one step.
const { startAttemptId } = await client.runs.prepare({ parentExecutionId: 'none', skipNotificationCheck: true });
const run = await client.runs.execute({ startAttemptId });
await client.runs.name({ runId: run.id, name: 'Release the SDK' });
const intake = await client.runs.intake({
  runId: run.id,
  progress_checklist_outcome: 'Pack, then install',
  tasks: [
    { action: 'Pack the SDK', expected_result: 'A tarball' },
    { action: 'Install the tarball', expected_result: 'It type-checks and runs' },
  ],
});
const step = await client.runs.step({
  runId: run.id,
  attemptId: intake.attemptId ?? 'none',
  evidence: 'agent-tasks-sdk-0.1.0.tgz',
  progress_execution_outcome: 'Packed',
});

console.log(
  JSON.stringify({
    sessionId: session.id,
    toolNames: { openai: openai.map((t) => t.function.name), anthropic: anthropic.map((t) => t.name) },
    todo: { answer: todoAnswer, items: todo.items },
    graph: {
      answers: [firstAnswer, secondAnswer, tooEarly],
      tasks: graph.tasks.map((t) => ({ id: t.id, subject: t.subject, status: t.status, blockedBy: t.blockedBy, ready: t.ready })),
    },
    run: { intake: intake.current, step: { cursor: step.cursor, total: step.total, current: step.current, status: step.status } },
  }),
);
