/**
 * JSON text of parsed transcript values, whatever their depth.
 *
 * `JSON.parse` reads a record nested 100,000 levels deep without trouble,
 * but `JSON.stringify` recurses and throws a RangeError ("Maximum call stack
 * size exceeded") at a few thousand levels. A transcript is untrusted input,
 * so a rule that shows or compares a value as JSON uses these instead: the
 * same text as `JSON.stringify` (compact), built with an explicit stack.
 */

type Frame =
  | { readonly kind: 'array'; readonly items: readonly unknown[]; next: number }
  | {
      readonly kind: 'object';
      readonly value: Readonly<Record<string, unknown>>;
      readonly keys: readonly string[];
      next: number;
      /** A member was written (the next one needs a comma). */
      written: boolean;
    };

/**
 * `JSON.stringify(value)` for a value that came from `JSON.parse` (plain
 * objects, arrays, strings, finite numbers, booleans, null), without
 * recursion. With `limit`, stops once that many characters are written and
 * returns the first `limit` of them: a 40-character excerpt of a huge value
 * costs 40 characters of work, not the whole value.
 */
export function jsonText(value: unknown, limit = Number.POSITIVE_INFINITY, sortKeys = false): string {
  let out = '';
  const stack: Frame[] = [];
  const full = (): boolean => out.length >= limit;
  /** Writes a scalar, or opens a container and pushes its frame. */
  const start = (v: unknown): void => {
    if (Array.isArray(v)) {
      out += '[';
      stack.push({ kind: 'array', items: v, next: 0 });
    } else if (v !== null && typeof v === 'object') {
      out += '{';
      const object = v as Record<string, unknown>;
      const keys = Object.keys(object);
      stack.push({ kind: 'object', value: object, keys: sortKeys ? keys.sort() : keys, next: 0, written: false });
    } else {
      out += JSON.stringify(v) ?? 'null';
    }
  };
  start(value);
  while (stack.length > 0 && !full()) {
    const frame = stack[stack.length - 1] as Frame;
    if (frame.kind === 'array') {
      if (frame.next >= frame.items.length) {
        out += ']';
        stack.pop();
        continue;
      }
      if (frame.next > 0) out += ',';
      const item = frame.items[frame.next++];
      // As JSON.stringify: holes and non-JSON values in an array are null.
      start(item === undefined || typeof item === 'function' ? null : item);
    } else {
      // Keys whose value JSON cannot carry are left out, as JSON.stringify does.
      while (frame.next < frame.keys.length) {
        const v = frame.value[frame.keys[frame.next] as string];
        if (v !== undefined && typeof v !== 'function') break;
        frame.next++;
      }
      if (frame.next >= frame.keys.length) {
        out += '}';
        stack.pop();
        continue;
      }
      const key = frame.keys[frame.next++] as string;
      if (frame.written) out += ',';
      frame.written = true;
      out += `${JSON.stringify(key)}:`;
      start(frame.value[key]);
    }
  }
  return out.length > limit ? out.slice(0, limit) : out;
}

/**
 * `JSON.stringify(value)`, the native way when it can, and {@link jsonText}
 * when the value is too deep for it.
 *
 * With `indent`, `JSON.stringify(value, null, indent)` when it can; a value
 * too deep for it comes compact, as {@link jsonText} writes it: the same
 * JSON, on one line (indenting 100,000 levels would be some 10 GB of
 * spaces, more than a string can hold).
 */
export function jsonTextOfAnyDepth(value: unknown, indent?: number): string {
  try {
    return JSON.stringify(value, null, indent) ?? 'null';
  } catch (error) {
    if (error instanceof RangeError) return jsonText(value);
    throw error;
  }
}

/**
 * {@link jsonText} with every object's keys in sorted order, at any depth:
 * two values that differ only in the order of their keys get one text.
 */
export function canonicalJsonText(value: unknown): string {
  return jsonText(value, Number.POSITIVE_INFINITY, true);
}
