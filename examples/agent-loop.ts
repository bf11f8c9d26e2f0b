// A runnable agent loop over the tool kit. A scripted "model" stands in for an LLM: each turn it reads the results of
// its previous tool calls and answers with new tool calls (name + JSON arguments, as OpenAI and Anthropic models send
// them), which go through `createDispatcher`. It drives a todo list, a task graph with two parallel branches and a
// checklist run, and reads one refusal back as text on the way.
//
//   AGENT_TASKS_URL=http://127.0.0.1:3000 AGENT_TASKS_TOKEN=<agent key or session token> npx tsx examples/agent-loop.ts
//
// With an agent key (atk_…) it opens its own session; with a session token (ats_…) it acts as that session.
// In your own project, import from '@agent-tasks/sdk' instead of the relative path.
import { type ToolCall, agentTools, createClient, createDispatcher, openAITools, openSessionClient } from '../packages/sdk/src/index.ts';

const url = process.env.AGENT_TASKS_URL ?? 'http://127.0.0.1:3000';
const token = process.env.AGENT_TASKS_TOKEN;
if (!token) {
  console.error('Set AGENT_TASKS_TOKEN to an agent key or a session token (and AGENT_TASKS_URL).');
  process.exit(2);
}
const listName = process.env.AGENT_TASKS_LIST ?? `agent-loop-${Date.now().toString(36)}`;

/** What a model answers in one turn: tool calls to make (possibly several in parallel), or its final text. */
type Reply = { toolCalls: ToolCall[] } | { text: string };

const call = (name: string, args: Record<string, unknown>): ToolCall => ({ name, arguments: JSON.stringify(args) });

/** Reads a value out of a tool's answer text, as a model would; fails loudly when the answer is not what it expects. */
function read(text: string | undefined, pattern: RegExp, what: string): string {
  const found = text?.match(pattern)?.[1];
  if (!found) throw new Error(`the model expected ${what}, but the tool answered: ${text}`);
  return found;
}

function ok(results: string[]) {
  const refusal = results.find((r) => r.startsWith('Error:'));
  if (refusal) throw new Error(`unexpected refusal: ${refusal}`);
  return results;
}

/**
 * The scripted model. `yield` hands tool calls to the loop and receives their result texts, in the same order.
 * A real model would get the same texts as tool results in its context and decide the next calls itself.
 */
function* scriptedModel(): Generator<Reply, void, string[]> {
  // 1. A todo list for the whole job: always sent whole.
  const plan = (
    states: ['pending' | 'in_progress' | 'completed', 'pending' | 'in_progress' | 'completed', 'pending' | 'in_progress' | 'completed'],
  ) =>
    call('todo_write', {
      todos: [
        { content: 'Lay out the task graph', status: states[0] },
        { content: 'Build both branches and integrate', status: states[1] },
        { content: 'Walk the release checklist', status: states[2] },
      ],
    });
  ok(yield { toolCalls: [plan(['in_progress', 'pending', 'pending'])] });

  // 2. A task graph with two parallel branches that join: frontend and backend, then integration tests.
  const [fe, be] = ok(
    yield {
      toolCalls: [
        call('TaskCreate', { listName, subject: 'Build frontend', activeForm: 'Building frontend' }),
        call('TaskCreate', { listName, subject: 'Build backend', activeForm: 'Building backend' }),
      ],
    },
  ).map((text) => read(text, /^Created (T-\S+)/, 'a created task id'));
  ok(yield { toolCalls: [call('TaskCreate', { listName, subject: 'Run integration tests', blockedBy: [fe, be] })] });
  // TaskList names a task with a long id by its short reference (#3), which every task tool takes in place of the id.
  const [it] = ok(yield { toolCalls: [call('TaskList', { listName })] }).map((text) =>
    read(text, /^(#\d+|T-\S+) +\[pending\] Run integration tests/m, 'the integration task'),
  );
  ok(yield { toolCalls: [call('TaskPlan', { listName }), plan(['completed', 'in_progress', 'pending'])] });

  // Too early: the integration tests wait for both branches. The refusal comes back as text the model reads.
  const [early] = yield { toolCalls: [call('TaskUpdate', { listName, id: it, status: 'in_progress' })] };
  read(early, /^(Error: task \S+ is blocked by)/, 'a refusal: the task is blocked');

  // Both branches at once: two tool calls in one turn, run in parallel.
  ok(yield { toolCalls: [call('TaskClaim', { listName, id: fe }), call('TaskClaim', { listName, id: be })] });
  ok(
    yield {
      toolCalls: [
        call('TaskUpdate', { listName, id: fe, status: 'completed' }),
        call('TaskUpdate', { listName, id: be, status: 'completed' }),
      ],
    },
  );
  // Now the join is ready: claim the oldest ready task (no id) and finish it.
  const [claimed] = ok(yield { toolCalls: [call('TaskClaim', { listName })] });
  read(claimed, /^Claimed (T-\S+) \[in_progress\] Run integration tests/, 'the integration task claimed');
  ok(yield { toolCalls: [call('TaskUpdate', { listName, id: it, status: 'completed' })] });
  ok(yield { toolCalls: [call('TaskList', { listName, includeCompleted: true }), plan(['completed', 'completed', 'in_progress'])] });

  // 3. A checklist run: prepare and execute the start, submit the checklist, then step task by task.
  const [prepared] = ok(yield { toolCalls: [call('checklist_prepare', { parentExecutionId: 'none', skipNotificationCheck: true })] });
  const startAttemptId = read(prepared, /startAttemptId "([^"]+)"/, 'a start attempt id');
  const [started] = ok(yield { toolCalls: [call('checklist_execute', { startAttemptId })] });
  const runId = read(started, /^Run (\S+) is at checklist intake/, 'a run id');
  // The run's name is persisted through the naming call before the checklist is submitted.
  ok(yield { toolCalls: [call('checklist_name', { runId, name: 'Release 1.0' })] });
  let [directive] = ok(
    yield {
      toolCalls: [
        call('checklist_intake', {
          runId,
          tasks: [
            { action: 'Publish the package', expected_result: 'The registry lists version 1.0' },
            { action: 'Tag the release', expected_result: 'Tag v1.0 exists' },
            { action: 'Announce the release', expected_result: 'The announcement is posted' },
          ],
          // publishing needs the tag: the service moves "Tag the release" first and says so
          needs: [{ task: 1, needs: [2] }],
          progress_checklist_outcome: 'Tag, publish and announce 1.0',
        }),
      ],
    },
  );
  for (let steps = 0; !/^All tasks done/m.test(directive ?? ''); steps++) {
    if (steps > 10) throw new Error(`the run did not finish: ${directive}`);
    const attemptId = read(directive, /call checklist_step with runId "[^"]+", attemptId "([^"]+)"/, 'the step attempt id');
    const action = read(directive, /^Task \d+\/\d+: (.+)$/m, 'the current action');
    [directive] = ok(
      yield {
        toolCalls: [
          call('checklist_step', { runId, attemptId, evidence: `Done: ${action}`, progress_execution_outcome: `${action}: done` }),
        ],
      },
    );
  }
  ok(yield { toolCalls: [call('checklist_get', { runId }), plan(['completed', 'completed', 'completed'])] });

  yield { text: `Done: the branches are built and integrated in list "${listName}", and run ${runId} is complete.` };
}

// ---- the agent loop ----

let client = createClient({ url, token });
if (!token.startsWith('ats_')) {
  const opened = await openSessionClient(client, { title: 'agent-loop example' });
  client = opened.client;
  console.log(`session: ${opened.session.id}`);
}
console.log(`list: ${listName}`);

const tools = agentTools(client);
const dispatch = createDispatcher(tools);
// What a real loop sends to the model with each request (or `anthropicTools(tools)` for Anthropic's Messages API):
const definitions = openAITools(tools);
console.log(`tools offered to the model: ${definitions.map((d) => d.function.name).join(', ')}\n`);

const model = scriptedModel();
let results: string[] = [];
let calls = 0;
let refusals = 0;
for (let turn = 1; ; turn++) {
  const next = model.next(results);
  if (next.done) break;
  const reply = next.value;
  if ('text' in reply) {
    console.log(`model: ${reply.text}`);
    break;
  }
  // Parallel tool calls of one turn run together; each answer is the text the model reads back (never a throw).
  results = await Promise.all(reply.toolCalls.map((c) => dispatch(c)));
  reply.toolCalls.forEach((c, i) => {
    calls++;
    if (results[i]?.startsWith('Error:')) refusals++;
    console.log(`[turn ${turn}] ${c.name} ${typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments)}`);
    console.log(`  → ${(results[i] ?? '').replaceAll('\n', '\n    ')}`);
  });
}
console.log(`\nagent loop finished: ${calls} tool calls, ${refusals} refusal(s) read back as text.`);
