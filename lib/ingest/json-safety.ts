/**
 * Values Postgres cannot store, found before they reach it: NUL characters (text and jsonb refuse
 * them), lone UTF-16 surrogates (jsonb refuses them), numbers that are not finite, and JSON nested
 * deeper than MAX_JSON_DEPTH (the serialiser and jsonb recurse). A rollout holding one is rejected
 * with the field's path; nothing is silently stripped.
 */

/** Deepest nesting of objects and arrays a rollout may have. */
export const MAX_JSON_DEPTH = 64;

/** One offending value: its dotted path and what is wrong. */
export interface ValueIssue {
  path: string;
  message: string;
}

// a NUL, or a high surrogate not followed by a low one, or a low one not preceded by a high one
// eslint-disable-next-line no-control-regex -- NUL is exactly what this refuses
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** String.prototype.isWellFormed (ES2024, in Node 20): false exactly when the string holds a lone surrogate. */
const isWellFormed = (String.prototype as unknown as { isWellFormed(this: string): boolean }).isWellFormed;

/** Why a string cannot be stored, or null. */
export function unstorableString(s: string): string | null {
  // the common case answered natively (a scan for NUL and a well-formedness check): the regex below, tried at every
  // position, was 1.6 s of the server's 23 s of CPU for ten Harbor jobs; it still finds the offset when there is one
  if (s.indexOf("\u0000") < 0 && isWellFormed.call(s)) return null;
  const m = UNSTORABLE.exec(s);
  if (!m) return null;
  return m[0] === "\u0000"
    ? `holds a NUL character (\\u0000) at offset ${m.index}`
    : `holds an unpaired UTF-16 surrogate at offset ${m.index}`;
}

/** The text with NUL characters and lone surrogates replaced (for our own messages, never for user data). */
export function storableText(s: string): string {
  // eslint-disable-next-line no-control-regex -- NUL is exactly what this replaces
  return s.replace(/\u0000/g, "\\u0000").replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
}

/** A value still to look at, and how it was reached (its path is spelled out only for an issue). */
interface Frame {
  v: unknown;
  key: string | number;
  parent: Frame | null;
  depth: number;
}

function pathOf(frame: Frame | null, last?: string): string {
  const keys: (string | number)[] = last === undefined ? [] : [last];
  for (let f = frame; f && f.parent; f = f.parent) keys.push(f.key);
  return keys.length ? keys.reverse().map(String).join(".") : "(root)";
}

/**
 * The values of a parsed JSON document that cannot be stored, walked without recursion (a deep
 * document cannot overflow the stack); stops after `max` issues.
 */
export function unstorableValues(value: unknown, max = 5): ValueIssue[] {
  const issues: ValueIssue[] = [];
  const stack: Frame[] = [{ v: value, key: "", parent: null, depth: 0 }];
  while (stack.length && issues.length < max) {
    const frame = stack.pop()!;
    const v = frame.v;
    if (typeof v === "string") {
      const why = unstorableString(v);
      if (why) issues.push({ path: pathOf(frame), message: why });
    } else if (typeof v === "number") {
      if (!Number.isFinite(v)) issues.push({ path: pathOf(frame), message: "is a number out of range (not finite)" });
    } else if (v !== null && typeof v === "object") {
      if (frame.depth >= MAX_JSON_DEPTH) {
        issues.push({ path: pathOf(frame), message: `is nested deeper than ${MAX_JSON_DEPTH} levels` });
        continue;
      }
      const depth = frame.depth + 1;
      if (Array.isArray(v)) {
        for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], key: i, parent: frame, depth });
      } else {
        const keys = Object.keys(v);
        for (let i = keys.length - 1; i >= 0; i--) {
          const key = keys[i];
          const why = unstorableString(key);
          if (why) {
            issues.push({ path: pathOf(frame, storableText(key)), message: `key ${why}` });
            continue;
          }
          stack.push({ v: (v as Record<string, unknown>)[key], key, parent: frame, depth });
        }
      }
    }
  }
  return issues;
}
