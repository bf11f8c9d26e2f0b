// Contracts of work you can trust: evidence on tasks (with its provenance), list settings, claim leases, capabilities.
import { z } from 'zod';
import { isoDate, unknownField } from './common.ts';
import { shown } from './shown.ts';

export const EVIDENCE_TEXT_MAX = 2000;
export const EVIDENCE_OUTPUT_TAIL_MAX = 4000;
export const EVIDENCE_PER_UPDATE_MAX = 10;
export const CAPABILITY_MAX = 100;
export const CAPABILITIES_MAX = 20;
/** Leases from one second to one day. */
export const LEASE_MS_MIN = 1_000;
export const LEASE_MS_MAX = 86_400_000;

const evidenceText = (field: string, max: number) =>
  z
    .string({ error: `Error: invalid evidence: \`${field}\` must be a string.` })
    .trim()
    .min(1, { error: `Error: invalid evidence: \`${field}\` must be a non-empty string.` })
    .max(max, { error: `Error: invalid evidence: \`${field}\` must be at most ${max} characters.` });

export const evidenceProvenances = ['agent', 'hook', 'ci'] as const;
export const evidenceProvenance = z.enum(evidenceProvenances);
export type EvidenceProvenance = z.infer<typeof evidenceProvenance>;

const noteEvidence = z.strictObject(
  { kind: z.literal('note'), text: evidenceText('text', EVIDENCE_TEXT_MAX) },
  { error: unknownField({ literals: true }) },
);
const commandEvidence = z.strictObject(
  {
    kind: z.literal('command'),
    command: evidenceText('command', EVIDENCE_TEXT_MAX),
    exitCode: z
      .number({ error: 'Error: invalid evidence: `exitCode` must be a whole number.' })
      .int({ error: 'Error: invalid evidence: `exitCode` must be a whole number.' }),
    outputTail: z
      .string({ error: 'Error: invalid evidence: `outputTail` must be a string.' })
      .max(EVIDENCE_OUTPUT_TAIL_MAX, {
        error: `Error: invalid evidence: \`outputTail\` must be at most ${EVIDENCE_OUTPUT_TAIL_MAX} characters.`,
      })
      .optional(),
  },
  { error: unknownField({ literals: true }) },
);
const checkEvidence = z.strictObject(
  {
    kind: z.literal('check'),
    name: evidenceText('name', 200),
    conclusion: evidenceText('conclusion', 40),
    url: evidenceText('url', 2000),
    commit: evidenceText('commit', 64).optional(),
  },
  { error: unknownField({ literals: true }) },
);

/** One piece of evidence as a caller sends it. */
export const evidenceInput = z.discriminatedUnion('kind', [noteEvidence, commandEvidence, checkEvidence], {
  error: (iss) =>
    iss.code === 'invalid_union'
      ? `Error: invalid evidence: \`kind\` must be "note", "command" or "check" (got ${shown((iss.input as { kind?: unknown } | undefined)?.kind)}).`
      : 'Error: invalid evidence: expected an object { kind: "note" | "command" | "check", … }.',
});
export type EvidenceInput = z.infer<typeof evidenceInput>;

/** TaskUpdate's `evidence`: one piece, or a few. */
export const evidenceField = z
  .union(
    [
      evidenceInput,
      z
        .array(evidenceInput)
        .min(1, { error: `Error: invalid evidence: send 1 to ${EVIDENCE_PER_UPDATE_MAX} pieces of evidence.` })
        .max(EVIDENCE_PER_UPDATE_MAX, { error: `Error: invalid evidence: send 1 to ${EVIDENCE_PER_UPDATE_MAX} pieces of evidence.` }),
    ],
    {
      error: (iss) => {
        const input = iss.input;
        if (Array.isArray(input)) return `Error: invalid evidence: send 1 to ${EVIDENCE_PER_UPDATE_MAX} pieces of evidence.`;
        const first = evidenceInput.safeParse(input);
        return first.error?.issues[0]?.message ?? 'Error: invalid evidence.';
      },
    },
  )
  .transform((e) => (Array.isArray(e) ? e : [e]));

/** One piece of evidence as recorded: what was sent, who it came from, when, and whether it reports success. */
export const evidence = z.object({
  kind: z.enum(['note', 'command', 'check']),
  provenance: evidenceProvenance.describe('agent: the agent said so; hook: a runtime hook saw it run; ci: a signed CI check'),
  success: z.boolean().describe('A command that exited 0 or a check that concluded success (a note: true)'),
  text: z.string().optional(),
  command: z.string().optional(),
  exitCode: z.number().int().optional(),
  outputTail: z.string().optional(),
  name: z.string().optional(),
  conclusion: z.string().optional(),
  url: z.string().optional(),
  commit: z.string().optional(),
  at: isoDate,
});
export type Evidence = z.infer<typeof evidence>;

/** verified: hook or CI evidence reports success; contested: a check failed after a success; unverified: neither. */
export const taskVerdict = z.enum(['verified', 'contested', 'unverified']);
export type TaskVerdict = z.infer<typeof taskVerdict>;

export const taskLease = z.object({ owner: z.string(), leaseMs: z.number().int(), expiresAt: isoDate });

const capability = (field: string) =>
  z
    .string({ error: `Error: invalid input: \`${field}\` must hold strings such as "tool:browser".` })
    .trim()
    .min(1, { error: `Error: invalid input: \`${field}\` must not be empty.` })
    .max(CAPABILITY_MAX, { error: `Error: invalid input: \`${field}\` entries must be at most ${CAPABILITY_MAX} characters.` });
export const capabilities = (field: string) =>
  z
    .array(capability(field), { error: `Error: invalid input: \`${field}\` must be an array of strings such as "tool:browser".` })
    .max(CAPABILITIES_MAX, { error: `Error: invalid input: \`${field}\` may hold at most ${CAPABILITIES_MAX} entries.` });

export const leaseMs = z
  .number({ error: `Error: invalid input: \`leaseMs\` must be a whole number of milliseconds from ${LEASE_MS_MIN} to ${LEASE_MS_MAX}.` })
  .int({ error: `Error: invalid input: \`leaseMs\` must be a whole number of milliseconds from ${LEASE_MS_MIN} to ${LEASE_MS_MAX}.` })
  .min(LEASE_MS_MIN, {
    error: `Error: invalid input: \`leaseMs\` must be a whole number of milliseconds from ${LEASE_MS_MIN} to ${LEASE_MS_MAX}.`,
  })
  .max(LEASE_MS_MAX, {
    error: `Error: invalid input: \`leaseMs\` must be a whole number of milliseconds from ${LEASE_MS_MIN} to ${LEASE_MS_MAX}.`,
  });

export const taskListSettings = z.object({
  listName: z.string(),
  requireEvidence: z.boolean().describe('Completing a task needs evidence'),
  requireVerified: z.boolean().describe('… and only hook or CI evidence reporting success counts'),
  leaseMs: z.number().int().nullable().describe('The lease a claim gets when it names none; null: none'),
});
export type TaskListSettings = z.infer<typeof taskListSettings>;

/** The workspace's secret for GitHub webhooks: set it as the webhook's secret on GitHub too. */
export const githubSecretInput = z.strictObject(
  {
    secret: z
      .string({ error: 'Error: invalid input: `secret` must be a string.' })
      .min(16, { error: 'Error: invalid input: `secret` must be 16 to 256 characters.' })
      .max(256, { error: 'Error: invalid input: `secret` must be 16 to 256 characters.' }),
  },
  { error: unknownField() },
);
export const githubSecretOutput = z.object({
  workspaceId: z.string().describe('Deliveries go to POST /hooks/github?workspace=<this id>'),
});
