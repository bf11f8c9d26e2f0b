// The access matrix's expected answers: for each procedure, what each caller gets — 'ok', or the refusal's app code.
// Callers: anonymous (no key); admin, agentKey, viewerKey, memberKey (keys of the first workspace; a member key is a
// person's); owner (the session owning the resources the calls aim at), subagent (a session the owner opened), peer
// (another session of the workspace, another key); otherAdmin, otherSession (a second workspace); revokedKey and
// revokedSession (a revoked key, a session it opened).
export const ACTORS = [
  'anonymous',
  'admin',
  'agentKey',
  'viewerKey',
  'memberKey',
  'owner',
  'subagent',
  'peer',
  'otherAdmin',
  'otherSession',
  'revokedKey',
  'revokedSession',
] as const;
export type Actor = (typeof ACTORS)[number];

/** The answers by their short names in the grid. */
const ANSWERS: Record<string, string> = { ok: 'ok', UN: 'UNAUTHENTICATED', FB: 'FORBIDDEN', NF: 'NOT_FOUND', NS: 'NO_OWNING_SESSION' };
const SHORT = new Map(Object.entries(ANSWERS).map(([short, answer]) => [answer, short]));

/**
 * Reads the grid: a header naming `procedure` and then every caller in ACTORS' order, then one row a procedure with one
 * cell a caller, the answer's short name (an answer without one stands as it is). Throws on a row that is not whole.
 */
function parseGrid(text: string): Record<string, Record<Actor, string>> {
  const [header, ...rows] = text
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/));
  if (header?.join(' ') !== ['procedure', ...ACTORS].join(' ')) throw new Error(`The grid's header must be: procedure ${ACTORS.join(' ')}`);
  const table: Record<string, Record<Actor, string>> = {};
  for (const [procedure = '', ...cells] of rows) {
    if (procedure in table) throw new Error(`The grid has two rows for ${procedure}.`);
    if (cells.length !== ACTORS.length) throw new Error(`The grid's row ${procedure} has ${cells.length} cells, not ${ACTORS.length}.`);
    table[procedure] = Object.fromEntries(ACTORS.map((actor, i) => [actor, ANSWERS[cells[i]!] ?? cells[i]!])) as Record<Actor, string>;
  }
  return table;
}

/** Writes answers as the grid, columns aligned (RECORD_MATRIX=1). */
export function formatGrid(answers: Record<string, Record<string, string>>): string {
  const rows = [
    ['procedure', ...ACTORS],
    ...Object.entries(answers).map(([procedure, row]) => [procedure, ...ACTORS.map((a) => SHORT.get(row[a]!) ?? row[a]!)]),
  ];
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
  const line = (row: string[]) =>
    row
      .map((cell, i) => cell.padEnd(widths[i]!))
      .join(' ')
      .trimEnd();
  return rows.map(line).join('\n');
}

/** One row a procedure, one column a caller. ok: the call succeeds; UN: UNAUTHENTICATED, FB: FORBIDDEN, NF: NOT_FOUND, NS: NO_OWNING_SESSION. */
export const grid = `
procedure                 anonymous admin agentKey viewerKey memberKey owner subagent peer otherAdmin otherSession revokedKey revokedSession
auth.streamTicket         UN        ok    ok       ok        ok        ok    ok       ok   ok         ok           UN         UN
workspaces.whoami         UN        ok    ok       ok        ok        ok    ok       ok   ok         ok           UN         UN
workspaces.create         UN        ok    FB       FB        FB        FB    FB       FB   ok         FB           UN         UN
workspaces.settings       UN        ok    ok       ok        ok        ok    ok       ok   ok         ok           UN         UN
workspaces.updateSettings UN        ok    FB       FB        FB        FB    FB       FB   ok         FB           UN         UN
keys.create               UN        ok    FB       FB        FB        FB    FB       FB   ok         FB           UN         UN
keys.list                 UN        ok    FB       FB        FB        FB    FB       FB   ok         FB           UN         UN
keys.revoke               UN        ok    FB       FB        FB        FB    FB       FB   NF         FB           UN         UN
sessions.open             UN        ok    ok       FB        FB        ok    ok       ok   ok         ok           UN         UN
sessions.list             UN        ok    ok       ok        ok        ok    ok       ok   ok         ok           UN         UN
sessions.get              UN        ok    ok       ok        ok        ok    NF       NF   NF         NF           UN         UN
sessions.startTurn        UN        NS    NS       FB        FB        ok    ok       ok   NS         ok           UN         UN
sessions.endTurn          UN        NS    NS       FB        FB        ok    ok       ok   NS         ok           UN         UN
todos.write               UN        NS    NS       FB        FB        ok    ok       ok   NS         ok           UN         UN
todos.mirror              UN        NS    NS       FB        FB        ok    ok       ok   NS         ok           UN         UN
todos.get                 UN        ok    ok       ok        ok        ok    NF       NF   NF         NF           UN         UN
todos.history             UN        ok    ok       ok        ok        ok    NF       NF   NF         NF           UN         UN
todos.card                UN        ok    ok       ok        ok        ok    NF       NF   NF         NF           UN         UN
todos.watch               UN        ok    ok       ok        ok        ok    NF       NF   NF         NF           UN         UN
tasks.create              UN        ok    NS       FB        ok        ok    ok       ok   ok         ok           UN         UN
tasks.get                 UN        ok    ok       ok        ok        ok    ok       ok   NF         NF           UN         UN
tasks.list                UN        ok    ok       ok        ok        ok    ok       ok   ok         ok           UN         UN
tasks.update              UN        ok    ok       FB        ok        ok    ok       ok   NF         NF           UN         UN
tasks.mirror              UN        ok    ok       FB        FB        ok    ok       ok   NF         NF           UN         UN
tasks.claim               UN        NS    NS       FB        FB        ok    ok       ok   NS         ok           UN         UN
tasks.plan                UN        ok    ok       ok        ok        ok    ok       ok   ok         ok           UN         UN
tasks.history             UN        ok    ok       ok        ok        ok    ok       ok   NF         NF           UN         UN
tasks.import              UN        ok    ok       FB        FB        ok    ok       ok   ok         ok           UN         UN
tasks.export              UN        ok    ok       ok        ok        ok    ok       ok   ok         ok           UN         UN
tasks.watch               UN        ok    ok       ok        ok        ok    ok       ok   ok         ok           UN         UN
runs.prepare              UN        NS    NS       FB        FB        ok    ok       ok   NS         ok           UN         UN
runs.execute              UN        NS    NS       FB        FB        ok    NF       NF   NS         NF           UN         UN
runs.name                 UN        NS    NS       FB        FB        ok    FB       FB   NS         NF           UN         UN
runs.intake               UN        NS    NS       FB        FB        ok    FB       FB   NS         NF           UN         UN
runs.step                 UN        NS    NS       FB        FB        ok    FB       FB   NS         NF           UN         UN
runs.teleport             UN        NS    NS       FB        FB        ok    FB       FB   NS         NF           UN         UN
runs.revise               UN        NS    NS       FB        FB        ok    FB       FB   NS         NF           UN         UN
runs.reportBlocker        UN        NS    NS       FB        FB        ok    FB       FB   NS         NF           UN         UN
runs.get                  UN        ok    ok       ok        ok        ok    ok       ok   NF         NF           UN         UN
runs.list                 UN        ok    ok       ok        ok        ok    ok       ok   ok         ok           UN         UN
runs.card                 UN        ok    ok       ok        ok        ok    ok       ok   NF         NF           UN         UN
runs.history              UN        ok    ok       ok        ok        ok    ok       ok   NF         NF           UN         UN
runs.notifications        UN        ok    ok       ok        ok        ok    ok       ok   NF         NF           UN         UN
runs.revokeLink           UN        ok    FB       FB        FB        FB    FB       FB   NF         FB           UN         UN
runs.restoreLink          UN        ok    FB       FB        FB        FB    FB       FB   NF         FB           UN         UN
runs.watch                UN        ok    ok       ok        ok        ok    ok       ok   NF         NF           UN         UN
channels.create           UN        ok    FB       FB        FB        FB    FB       FB   ok         FB           UN         UN
channels.list             UN        ok    FB       FB        FB        FB    FB       FB   ok         FB           UN         UN
channels.delete           UN        ok    FB       FB        FB        FB    FB       FB   NF         FB           UN         UN
channels.sendTest         UN        ok    FB       FB        FB        FB    FB       FB   NF         FB           UN         UN
channels.retryDelivery    UN        ok    FB       FB        FB        FB    FB       FB   NF         FB           UN         UN
dashboard.sessionTree     UN        ok    ok       ok        ok        ok    ok       ok   ok         ok           UN         UN
dashboard.watchSessions   UN        ok    ok       ok        ok        ok    ok       ok   ok         ok           UN         UN
dashboard.taskLists       UN        ok    ok       ok        ok        ok    ok       ok   ok         ok           UN         UN
dashboard.taskGraph       UN        ok    ok       ok        ok        ok    ok       ok   ok         ok           UN         UN
dashboard.outbox          UN        ok    FB       FB        FB        FB    FB       FB   ok         FB           UN         UN
dashboard.watchRunLink    ok        ok    ok       ok        ok        ok    ok       ok   ok         ok           ok         ok
`;

export const expected = parseGrid(grid);
