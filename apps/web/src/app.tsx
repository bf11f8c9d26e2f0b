// The app shell: sign-in gate, header with navigation, role and connection state, and the client-side routes.
import { Suspense, lazy } from 'react';
import { Link, Route, Switch, useLocation } from 'wouter';
import { ConnectionIndicator } from './components/connection-indicator.tsx';
import { ErrorMessage } from './components/error-message.tsx';
import { useKey, useSignOut, useWhoami } from './lib/auth.ts';
import { RunPage } from './pages/run-page.tsx';
import { RunsPage } from './pages/runs.tsx';
import { SessionPage } from './pages/session.tsx';
import { SessionsPage } from './pages/sessions.tsx';
import { SignIn } from './pages/sign-in.tsx';
import { TaskListPage } from './pages/task-list.tsx';
import { TaskListsPage } from './pages/task-lists.tsx';
import { SessionsWatch } from './pages/sessions-watch.tsx';

const AdminPage = lazy(() => import('./pages/admin.tsx'));

const runLink = /^\/runs\/[^/]+\/?$/;

export function App() {
  const key = useKey();
  const [location] = useLocation();
  // A run link (from a notification) opens without a key: the unguessable run id is the capability.
  if (!key && !runLink.test(location)) return <SignIn />;
  return (
    <>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <Header signedIn={key !== null} />
      <main id="main" tabIndex={-1}>
        <Suspense fallback={<p aria-busy="true">Loading…</p>}>
          <Switch>
            <Route path="/" component={SessionsPage} />
            <Route path="/sessions/:id">{(params) => <SessionPage id={params.id} />}</Route>
            <Route path="/tasks" component={TaskListsPage} />
            <Route path="/tasks/:list">{(params) => <TaskListPage listName={params.list} />}</Route>
            <Route path="/runs" component={RunsPage} />
            <Route path="/runs/:id">{(params) => <RunPage id={params.id} />}</Route>
            <Route path="/admin" component={AdminPage} />
            <Route>
              <h1>Page not found</h1>
              <p>
                <Link href="/">Back to the sessions</Link>
              </p>
            </Route>
          </Switch>
        </Suspense>
      </main>
      {key ? <SessionsWatch /> : null}
    </>
  );
}

function Header({ signedIn }: { signedIn: boolean }) {
  const whoami = useWhoami();
  const signOut = useSignOut();
  const [location] = useLocation();
  const current = (path: string) => (path === '/' ? location === '/' || location.startsWith('/sessions') : location.startsWith(path));
  const role = whoami.data?.role;
  return (
    <header className="top">
      <Link href="/" className="brand">
        agent-tasks
      </Link>
      {signedIn ? (
        <nav aria-label="Main">
          <ul>
            <li>
              <Link href="/" aria-current={current('/') ? 'page' : undefined}>
                Sessions
              </Link>
            </li>
            <li>
              <Link href="/tasks" aria-current={current('/tasks') ? 'page' : undefined}>
                Tasks
              </Link>
            </li>
            <li>
              <Link href="/runs" aria-current={current('/runs') ? 'page' : undefined}>
                Runs
              </Link>
            </li>
            {role === 'admin' ? (
              <li>
                <Link href="/admin" aria-current={current('/admin') ? 'page' : undefined}>
                  Admin
                </Link>
              </li>
            ) : null}
          </ul>
        </nav>
      ) : null}
      <div className="who">
        <ConnectionIndicator />
        {signedIn ? (
          <>
            {role ? (
              <span className="role" data-role={role}>
                {whoami.data?.workspace.name} · {role}
              </span>
            ) : null}
            <button type="button" onClick={signOut}>
              Sign out
            </button>
          </>
        ) : (
          <Link href="/">Sign in</Link>
        )}
      </div>
      {whoami.error ? <ErrorMessage error={whoami.error} /> : null}
    </header>
  );
}
