/**
 * The values of `"uuid"` keys, found in raw text rather than by parsing:
 * the write path asks which records a plan removes so that a line Claude
 * Code appends during the swap, which may name one of them, is never put
 * after bytes that no longer hold its parent. A line need not be whole or
 * valid JSON for that question.
 */
import { scanLineViews, type ByteSource } from '../core/reader.js';
import type { ReadHandle } from './fs-port.js';

const UUID_FIELD = /"uuid"\s*:\s*"([^"\\]+)"/g;

/**
 * Adds the value of every `"uuid"` key in `text` to `into`. Each is a copy:
 * a match is a slice of its text and would keep the whole line alive.
 */
export function addUuidFields(text: string, into: Set<string>): void {
  for (const match of text.matchAll(UUID_FIELD)) {
    if (match[1] !== undefined) into.add(Buffer.from(match[1]).toString());
  }
}

/** {@link addUuidFields} over bytes `[start, end)` behind a handle, read line by line. */
export function uuidFieldsInRange(handle: ReadHandle, start: number, end: number): Set<string> {
  const found = new Set<string>();
  const source: ByteSource = {
    size: end - start,
    read(target, targetOffset, length, position) {
      const want = Math.max(0, Math.min(length, end - start - position));
      return handle.read(start + position, want, target.subarray(targetOffset, targetOffset + want)).length;
    },
    close: () => undefined,
  };
  scanLineViews(source, (line) => {
    if (line.bytes !== undefined) addUuidFields(line.bytes.toString('utf8', line.start, line.end), found);
  });
  return found;
}
