// The dependency graph, left to right (loaded on demand): ready tasks marked, waves numbered, the critical path
// highlighted, blocked tasks naming their blockers; each task opens its panel by click or keyboard.
import { VerdictSvgBadge } from '../components/trust-badges.tsx';
import type { TaskGraph } from '@agent-tasks/schema';
import { type KeyboardEvent, useEffect, useMemo, useRef } from 'react';
import { NODE_HEIGHT, NODE_WIDTH, layoutGraph } from '../lib/graph-layout.ts';
import { useSubjects } from '../lib/task-subjects.ts';

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The critical path in words; a long one keeps its first and last five tasks (the graph highlights all of it). */
function pathText(subjects: string[]) {
  if (subjects.length === 0) return 'nothing left to do';
  if (subjects.length <= 12) return subjects.join(' → ');
  return `${subjects.slice(0, 5).join(' → ')} → … ${subjects.length - 10} more … → ${subjects.slice(-5).join(' → ')}`;
}

export default function TaskGraphView({
  graph,
  onOpen,
  selected,
}: {
  graph: TaskGraph;
  onOpen: (id: string) => void;
  selected: string | null;
}) {
  const { layout, layoutMs, laidAt } = useMemo(() => {
    const started = performance.now();
    const laid = layoutGraph(graph);
    return { layout: laid, layoutMs: Math.round(performance.now() - started), laidAt: performance.now() };
  }, [graph]);
  // When the layout was done and the graph drawn (the next frame), in ms since the page opened: for the scale test.
  const section = useRef<HTMLElement>(null);
  useEffect(() => {
    const frame = requestAnimationFrame(() => section.current?.setAttribute('data-drawn-at', String(Math.round(performance.now()))));
    return () => cancelAnimationFrame(frame);
  }, [laidAt]);
  const subjects = useSubjects(graph);
  const byId = useMemo(() => new Map(graph.tasks.map((t) => [t.id, t])), [graph]);
  const path = (points: { x: number; y: number }[]) => points.map((p, i) => `${i === 0 ? 'M' : 'L'}${p.x},${p.y}`).join(' ');
  const keyOpen = (id: string) => (e: KeyboardEvent) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      onOpen(id);
    }
  };

  return (
    <section aria-labelledby="graph-title" className="graph" data-layout-ms={layoutMs} data-laid-at={Math.round(laidAt)} ref={section}>
      <h2 id="graph-title" className="visually-hidden">
        Dependency graph
      </h2>
      <p className="critical-path" data-testid="critical-path">
        <strong>Critical path</strong> ({graph.criticalPath.length} task{graph.criticalPath.length === 1 ? '' : 's'}):{' '}
        {pathText(graph.criticalPath.map((id) => subjects.get(id) ?? id))}
      </p>
      <ul className="legend" aria-label="Legend">
        <li className="lg-ready">ready to start</li>
        <li className="lg-blocked">blocked (names its blockers)</li>
        <li className="lg-critical">on the critical path</li>
        <li className="lg-done">completed</li>
      </ul>
      <div className="graph-scroll">
        <svg
          width={layout.width}
          height={layout.height}
          viewBox={`0 0 ${layout.width} ${layout.height}`}
          role="group"
          aria-label={`Dependency graph of ${graph.tasks.length} tasks, left to right`}
        >
          <defs>
            <marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
              <path d="M0,0 L10,5 L0,10 z" className="arrow" />
            </marker>
          </defs>
          <g className="edges" aria-hidden="true">
            {layout.edges.map((e) => (
              <path
                key={`${e.from}-${e.to}`}
                d={path(e.points)}
                className={`edge${e.critical ? ' critical' : ''}${e.open ? ' open' : ''}`}
                markerEnd="url(#arrow)"
              />
            ))}
          </g>
          <g className="nodes">
            {layout.nodes.map((n) => {
              const t = byId.get(n.id);
              if (!t) return null;
              const blockers = t.unresolvedBlockers.map((b) => subjects.get(b) ?? b);
              const state = t.ready ? 'ready' : t.status === 'completed' ? 'done' : blockers.length > 0 ? 'blocked' : t.status;
              const second = t.ready
                ? 'ready'
                : blockers.length > 0
                  ? `blocked by ${clip(blockers.join(', '), 20)}`
                  : t.status.replace('_', ' ') + (t.owner ? ` · ${t.owner}` : '');
              const describe = `${t.subject}: ${t.status.replace('_', ' ')}${t.ready ? ', ready' : ''}${
                blockers.length ? `, blocked by ${blockers.join(', ')}` : ''
              }${n.wave ? `, wave ${n.wave}` : ''}${n.critical ? ', on the critical path' : ''}${
                t.verdict === 'verified' || t.verdict === 'contested' ? `, ${t.verdict}` : ''
              }`;
              return (
                <g
                  key={n.id}
                  transform={`translate(${n.x},${n.y})`}
                  className={`node node-${state}${n.critical ? ' critical' : ''}${selected === n.id ? ' selected' : ''}`}
                  role="button"
                  tabIndex={0}
                  aria-label={describe}
                  data-task={n.id}
                  onClick={() => onOpen(n.id)}
                  onKeyDown={keyOpen(n.id)}
                >
                  <title>{describe}</title>
                  <rect width={NODE_WIDTH} height={NODE_HEIGHT} rx="8" />
                  <text x="10" y="22" className="subject">
                    {clip(t.subject, 26)}
                  </text>
                  <text x="10" y="42" className="sub">
                    {second}
                  </text>
                  <VerdictSvgBadge verdict={t.verdict} x={NODE_WIDTH - 10} y={42} />
                  {n.wave ? (
                    <text x={NODE_WIDTH - 10} y="22" textAnchor="end" className="wave">
                      W{n.wave}
                    </text>
                  ) : null}
                </g>
              );
            })}
          </g>
        </svg>
      </div>
      <details className="waves">
        <summary>Waves ({graph.waves.length}): tasks of one wave can run together</summary>
        <ol>
          {graph.waves.map((ids, i) => (
            <li key={ids[0] ?? i}>{ids.map((id) => subjects.get(id) ?? id).join(', ')}</li>
          ))}
        </ol>
      </details>
    </section>
  );
}
