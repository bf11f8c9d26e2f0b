// Sessions: every agent session of the workspace as a tree (subagents under their parent), live.
import type { SessionTreeNode } from '@agent-tasks/schema';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'wouter';
import { ConnectAgent } from '../components/connect-agent.tsx';
import { ErrorMessage } from '../components/error-message.tsx';
import { TimeAgo } from '../components/time-ago.tsx';
import { useTRPC } from '../lib/api.ts';

interface Branch {
  node: SessionTreeNode;
  children: Branch[];
}

/** Nests the server's pre-order list (each node with its depth) into branches. */
export function nest(nodes: readonly SessionTreeNode[]): Branch[] {
  const roots: Branch[] = [];
  const path: Branch[] = [];
  for (const node of nodes) {
    const branch = { node, children: [] };
    path.length = Math.min(path.length, node.depth);
    (path.at(-1)?.children ?? roots).push(branch);
    path.push(branch);
  }
  return roots;
}

export function SessionsPage() {
  const trpc = useTRPC();
  const tree = useQuery(trpc.dashboard.sessionTree.queryOptions());
  return (
    <>
      <h1>Sessions</h1>
      <ErrorMessage error={tree.error} />
      {tree.isPending ? <p aria-busy="true">Loading sessions…</p> : null}
      {tree.data && tree.data.sessions.length === 0 ? <ConnectAgent /> : null}
      {tree.data && tree.data.sessions.length > 0 ? (
        <>
          <p className="hint">
            {tree.data.sessions.length} session{tree.data.sessions.length === 1 ? '' : 's'}; subagents are listed under the session that
            opened them.
          </p>
          <SessionBranches branches={nest(tree.data.sessions)} label="Sessions" />
        </>
      ) : null}
    </>
  );
}

function SessionBranches({ branches, label }: { branches: Branch[]; label?: string }) {
  return (
    <ul className="session-tree" aria-label={label}>
      {branches.map(({ node, children }) => (
        <li key={node.session.id}>
          <article className="session-row" aria-labelledby={`s-${node.session.id}`}>
            <h2 id={`s-${node.session.id}`}>
              <Link href={`/sessions/${node.session.id}`}>{node.session.title ?? 'Untitled session'}</Link>
            </h2>
            <dl className="facts">
              <div>
                <dt>Agent</dt>
                <dd>{node.session.agentName}</dd>
              </div>
              <div>
                <dt>Last activity</dt>
                <dd>
                  <TimeAgo iso={node.lastActivityAt} />
                </dd>
              </div>
              <div>
                <dt>Turn</dt>
                <dd>{node.session.turn.state === 'none' ? 'not started' : `${node.session.turn.number} (${node.session.turn.state})`}</dd>
              </div>
              <div className="counts" data-testid="counts">
                <dt>List</dt>
                <dd>
                  {node.counts.pending} pending · {node.counts.inProgress} in progress · {node.counts.completed} completed
                </dd>
              </div>
              {node.children > 0 ? (
                <div>
                  <dt>Subagents</dt>
                  <dd>{node.children}</dd>
                </div>
              ) : null}
            </dl>
          </article>
          {children.length > 0 ? <SessionBranches branches={children} /> : null}
        </li>
      ))}
    </ul>
  );
}
