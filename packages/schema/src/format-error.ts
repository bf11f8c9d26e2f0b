// Turns a zod validation failure into the one clear "Error: …" line a caller (or a model) reads.
import type { z } from 'zod';

export function formatZodError(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'Error: invalid input.';
  if (issue.message.startsWith('Error:')) return issue.message;
  const where = issue.path.length ? `\`${issue.path.join('.')}\`: ` : '';
  return `Error: invalid input: ${where}${issue.message}`;
}
