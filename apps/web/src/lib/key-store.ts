// The signed-in key: kept in this tab's session storage only (never in a URL), with change notifications for React.
const STORAGE_KEY = 'agent-tasks.key';
const listeners = new Set<() => void>();

export function readKey(): string | null {
  try {
    return sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

export function writeKey(key: string | null) {
  if (key === null) sessionStorage.removeItem(STORAGE_KEY);
  else sessionStorage.setItem(STORAGE_KEY, key);
  for (const listener of listeners) listener();
}

export function subscribeKey(listener: () => void) {
  listeners.add(listener);
  return () => void listeners.delete(listener);
}
