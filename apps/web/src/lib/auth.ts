// Who is signed in: the key from session storage, checked against the server (workspaces.whoami); sign in and out.
import type { AppRouter } from '@agent-tasks/server/router';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { createTRPCClient, httpLink } from '@trpc/client';
import { useSyncExternalStore } from 'react';
import { useTRPC } from './api.ts';
import { readKey, subscribeKey, writeKey } from './key-store.ts';

export const useKey = () => useSyncExternalStore(subscribeKey, readKey, () => null);

/** The caller behind the stored key: role and workspace; `null` data while signed out. */
export function useWhoami() {
  const trpc = useTRPC();
  const key = useKey();
  return useQuery({ ...trpc.workspaces.whoami.queryOptions(undefined, { staleTime: 60_000 }), enabled: key !== null });
}

/** Checks a key with the server before keeping it; throws the server's refusal (its exact text) when it is not valid. */
export async function checkKey(key: string) {
  const client = createTRPCClient<AppRouter>({
    links: [httpLink({ url: '/trpc', headers: { authorization: `Bearer ${key}` } })],
  });
  return client.workspaces.whoami.query();
}

export function useSignOut() {
  const queryClient = useQueryClient();
  return () => {
    writeKey(null);
    queryClient.clear();
  };
}

export function signIn(key: string) {
  writeKey(key);
}
