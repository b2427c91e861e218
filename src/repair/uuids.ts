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

/** Bytes `[start, end)` behind a handle, as a source the line scanner reads. */
function rangeSource(handle: ReadHandle, start: number, end: number): ByteSource {
  return {
    size: end - start,
    read(target, targetOffset, length, position) {
      const want = Math.max(0, Math.min(length, end - start - position));
      return handle.read(start + position, want, target.subarray(targetOffset, targetOffset + want)).length;
    },
    close: () => undefined,
  };
}

/** {@link addUuidFields} over bytes `[start, end)` behind a handle, read line by line. */
export function uuidFieldsInRange(handle: ReadHandle, start: number, end: number): Set<string> {
  const found = new Set<string>();
  scanLineViews(rangeSource(handle, start, end), (line) => {
    if (line.bytes !== undefined) addUuidFields(line.bytes.toString('utf8', line.start, line.end), found);
  });
  return found;
}

/** The first of `uuids` that `text` names as a JSON string (anywhere: as a uuid, a parent, a tool's source). */
export function namedIn(text: string, uuids: Iterable<string>): string | undefined {
  for (const uuid of uuids) if (text.includes(`"${uuid}"`)) return uuid;
  return undefined;
}

/** {@link namedIn} over the lines of bytes `[start, end)` behind a handle. */
export function namedInRange(handle: ReadHandle, start: number, end: number, uuids: ReadonlySet<string>): string | undefined {
  if (uuids.size === 0 || end <= start) return undefined;
  let found: string | undefined;
  scanLineViews(rangeSource(handle, start, end), (line) => {
    if (found === undefined && line.bytes !== undefined) found = namedIn(line.bytes.toString('utf8', line.start, line.end), uuids);
  });
  return found;
}
