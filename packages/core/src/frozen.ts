// Deep freezing of an answer kept for reuse (core's ReadCache): shared by every reader, so none can change it for the next.

/** `value`, frozen through (its objects and arrays, at every depth); returned for chaining. */
export function frozen<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) frozen(inner);
    Object.freeze(value);
  }
  return value;
}
