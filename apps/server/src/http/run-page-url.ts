// The address of a run's page (`/runs/<id>`, served by run-links.ts) under the server's public URL: the link that
// the run's notifications carry.
export const runPageUrl = (publicUrl: string, runId: string) => `${publicUrl.replace(/\/+$/, '')}/runs/${runId}`;
