// Values whose JSON text is already in hand (a run's checklist as read from its column): an answer that holds one is
// written with that text put in its place, not serialised again.
import { randomBytes } from 'node:crypto';

/**
 * Each value's text; gone with the value (a kept answer holding it keeps it, within the read cache's bound). Only values
 * frozen at every level, or stand-ins (`lazyJson`) while unchanged: their text stays right.
 */
const texts = new WeakMap<object, string>();

/** Whether `value` and everything in it is frozen (core's `frozen()`), so its JSON text can never change. */
function frozenThrough(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true;
  return Object.isFrozen(value) && Object.values(value).every(frozenThrough);
}

/** Notes the JSON text of a value frozen at every level, when it is exactly the value's (both checked once here). */
export function knowJson(value: object, text: string) {
  if (frozenThrough(value) && JSON.stringify(value) === text) texts.set(value, text);
}

/**
 * The object or array whose JSON text is `text`, parsed the first time anything looks into it; until then its text is
 * its known text, so an answer sent as it is never parses it (a worker's answer from the writer, cluster/writer-link.ts).
 * A change made to it forgets that text. `text` must be a JSON object or array, JSON.stringify's (as the writer makes
 * it); `hasThen`: whether it has a key `then` on top.
 */
export function lazyJson(text: string, hasThen: boolean): object {
  let value: object | undefined;
  const parsed = () => (value ??= JSON.parse(text) as object);
  let proxy: object;
  const changed = <T>(result: T) => (texts.delete(proxy), result);
  proxy = new Proxy(text[0] === '[' ? [] : {}, {
    // A symbol is never a JSON key: asked for one (is it a stream? `Symbol.asyncIterator in data`), the stand-in answers
    // as the object or array it stands for, without parsing. So does `then` (what `await` asks: tRPC's output step
    // awaits the answer) while unparsed, when the value has no such key.
    get: (target, key): unknown =>
      typeof key === 'symbol' || (key === 'then' && value === undefined && !hasThen)
        ? Reflect.get(target, key)
        : Reflect.get(parsed(), key),
    has: (target, key) => (typeof key === 'symbol' ? Reflect.has(target, key) : Reflect.has(parsed(), key)),
    ownKeys: () => Reflect.ownKeys(parsed()),
    getOwnPropertyDescriptor: (_, key) => Reflect.getOwnPropertyDescriptor(parsed(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(parsed()),
    set: (_, key, next) => changed(Reflect.set(parsed(), key, next)),
    defineProperty: (_, key, descriptor) => changed(Reflect.defineProperty(parsed(), key, descriptor)),
    deleteProperty: (_, key) => changed(Reflect.deleteProperty(parsed(), key)),
  });
  texts.set(proxy, text);
  return proxy;
}

/** The known text of `value` itself, or undefined. */
export const knownJson = (value: unknown) => (typeof value === 'object' && value !== null ? texts.get(value) : undefined);

/** A string no answer holds by chance (a NUL and this process's random token): where a known text goes. */
const MARK = `\u0000${randomBytes(12).toString('base64url')}#`;

/**
 * `JSON.stringify(value)` in pieces, in order: its known text, or its text made with the known texts of its own fields
 * put in their places, each a piece of its own (a run's view is 28 KB of which its checklist is 13: serialising it again
 * costs a third of the answer's time, and joining the pieces into one text, a copy). A plain object's fields are looked
 * at, no deeper; anything else is serialised as it is.
 */
export function jsonPiecesWithKnown(value: unknown): string[] {
  const whole = knownJson(value);
  if (whole !== undefined) return [whole];
  // Not a plain object, or one that says what its text is (its `toJSON`, even one not enumerable): serialised as it is.
  if (typeof value !== 'object' || value === null || Object.getPrototypeOf(value) !== Object.prototype || 'toJSON' in value) {
    return [JSON.stringify(value)];
  }
  const fields = value as Record<string, unknown>;
  let known: string[] | undefined;
  let marked: Record<string, unknown> | undefined;
  for (const key of Object.keys(fields)) {
    const text = knownJson(fields[key]);
    if (text === undefined) continue;
    known ??= [];
    marked ??= { ...fields };
    marked[key] = `${MARK}${known.length}`;
    known.push(text);
  }
  if (!known || !marked) return [JSON.stringify(value)];
  const out = JSON.stringify(marked);
  const pieces: string[] = [];
  // The marks come in the order of the fields, as JSON.stringify writes them.
  let from = 0;
  for (const [i, text] of known.entries()) {
    const mark = JSON.stringify(`${MARK}${i}`);
    const at = out.indexOf(mark, from);
    if (at === -1) return [JSON.stringify(value)];
    pieces.push(out.slice(from, at), text);
    from = at + mark.length;
  }
  pieces.push(out.slice(from));
  return pieces;
}

/** `JSON.stringify(value)`, made with the known texts it holds (`jsonPiecesWithKnown`). */
export const jsonWithKnown = (value: unknown): string => jsonPiecesWithKnown(value).join('');

/**
 * Texts as their UTF-8 bytes, one after the other in one buffer (no text made of them all first). Each is encoded on
 * its own: a surrogate pair cut between two texts would not be one character (`jsonPiecesWithKnown` cuts only next to
 * a quote).
 */
export function utf8Of(pieces: readonly string[]): Buffer<ArrayBuffer> {
  let length = 0;
  for (const piece of pieces) length += Buffer.byteLength(piece);
  const bytes = Buffer.allocUnsafe(length);
  let at = 0;
  for (const piece of pieces) at += bytes.write(piece, at);
  return bytes;
}
