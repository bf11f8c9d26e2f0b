// Full-text search over a task list (subjects, descriptions, comments): ranked hits with the matched words marked;
// choosing a hit opens its task.
import { useQuery } from '@tanstack/react-query';
import { type FormEvent, Fragment, useState } from 'react';
import { useTRPC } from '../lib/api.ts';
import { ErrorMessage } from './error-message.tsx';

/** A snippet with its matches marked between [ and ], as <mark>s. */
function Snippet({ text }: { text: string }) {
  const parts = text.split(/(\[[^\]]*\])/);
  return (
    <>
      {parts.map((part, i) =>
        part.startsWith('[') && part.endsWith(']') ? <mark key={i}>{part.slice(1, -1)}</mark> : <Fragment key={i}>{part}</Fragment>,
      )}
    </>
  );
}

export function TaskSearch({ listName, onOpen }: { listName: string; onOpen: (id: string) => void }) {
  const trpc = useTRPC();
  const [text, setText] = useState('');
  const [query, setQuery] = useState('');
  const search = useQuery({ ...trpc.tasks.search.queryOptions({ listName, query }), enabled: query !== '' });

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setQuery(text.trim());
  };

  return (
    <search className="task-search">
      <form onSubmit={submit} aria-label="Search tasks">
        <label>
          Search{' '}
          <input
            type="search"
            value={text}
            onChange={(e) => setText(e.target.value)}
            maxLength={200}
            placeholder="words in subjects, descriptions, comments"
          />
        </label>
        <button type="submit">Search</button>
      </form>
      <ErrorMessage error={search.error} />
      {query && search.data ? (
        search.data.hits.length === 0 ? (
          <p className="none" role="status">
            No task matches “{query}”.
          </p>
        ) : (
          <ol className="search-hits" aria-label={`Tasks matching ${query}`}>
            {search.data.hits.map((h) => (
              <li key={h.id}>
                <button type="button" className="link" onClick={() => onOpen(h.id)}>
                  {h.ref} {h.subject}
                </button>{' '}
                <span className={`status status-${h.status}`}>{h.status.replace('_', ' ')}</span>
                <p className="snippet">
                  <Snippet text={h.snippet} />
                </p>
              </li>
            ))}
          </ol>
        )
      ) : null}
    </search>
  );
}
