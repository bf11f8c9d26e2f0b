// The page a run link shows when its run does not exist or its link was revoked: what happened, and a way in.
import { Link } from 'wouter';

export function RunLinkMissing({ id, signedIn }: { id: string; signedIn: boolean }) {
  return (
    <section className="empty run-missing" aria-labelledby="run-missing-title">
      <h1 id="run-missing-title">This run link leads to no run</h1>
      <p>
        No run <code>{id}</code> can be shown: it does not exist, or an admin of its workspace revoked its link. A revoked link works again
        only if an admin restores it; ask whoever sent it for a new one.
      </p>
      <p>{signedIn ? <Link href="/runs">See your workspace's runs</Link> : <Link href="/">Sign in to the dashboard</Link>}</p>
    </section>
  );
}
