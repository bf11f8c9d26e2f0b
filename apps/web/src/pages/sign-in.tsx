// Sign in with a viewer, admin or agent key; the key is checked by the server and kept in session storage only.
import { type FormEvent, useState } from 'react';
import { ErrorMessage } from '../components/error-message.tsx';
import { checkKey, signIn } from '../lib/auth.ts';

export function SignIn() {
  const [key, setKey] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  async function submit(event: FormEvent) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await checkKey(key.trim());
      signIn(key.trim());
    } catch (refusal) {
      setError(refusal);
    } finally {
      setBusy(false);
    }
  }

  return (
    <main id="main" className="sign-in">
      <h1>agent-tasks</h1>
      <p>The live view of your agents' todo lists, task graphs and checklist runs.</p>
      <form onSubmit={(event) => void submit(event)} aria-describedby="key-help">
        <label htmlFor="key">API key</label>
        <input
          id="key"
          name="key"
          type="password"
          autoComplete="off"
          spellCheck={false}
          required
          value={key}
          onChange={(e) => setKey(e.target.value)}
          aria-invalid={error ? true : undefined}
        />
        <p id="key-help" className="hint">
          A viewer, agent or admin key (<code>atk_…</code>). It stays in this tab only and is forgotten when you sign out or close it.
        </p>
        <button type="submit" disabled={busy || key.trim() === ''}>
          {busy ? 'Checking…' : 'Sign in'}
        </button>
        <ErrorMessage error={error} />
      </form>
    </main>
  );
}
