// Request text read as JSON, or a marker that it is none (the request is then left to tRPC's handler to refuse).

export const NOT_JSON = Symbol('not JSON');

/** The text's value as JSON; undefined for no text; NOT_JSON when it does not parse. */
export function jsonOf(text: string | undefined): unknown {
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return NOT_JSON;
  }
}
