// Turns a zod validation failure into the one clear "Error: …" line a caller (or a model) reads; JSON Schema export.
import { toJSONSchema, type z } from 'zod';

export function formatZodError(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'Error: invalid input.';
  if (issue.message.startsWith('Error:')) return issue.message;
  const where = issue.path.length ? `\`${issue.path.join('.')}\`: ` : '';
  return `Error: invalid input: ${where}${issue.message}`;
}

/** The JSON Schema of a contract's input, for LLM tool definitions. */
export const jsonSchemaOf = (schema: z.ZodType) => toJSONSchema(schema, { io: 'input' }) as Record<string, unknown>;
