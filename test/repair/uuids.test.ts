/**
 * The raw scan for `"uuid"` values that tells the writer which records a
 * plan removes: the same answer from a line held as text and from the same
 * bytes read through a handle, whatever the spacing, the other keys or a
 * torn last line.
 */
import { Volume } from 'memfs';
import { describe, expect, it } from 'vitest';
import { addUuidFields, uuidFieldsInRange } from '../../src/repair/uuids.js';
import { memFs } from '../helpers/memfs-port.js';

const LINES = [
  '{"parentUuid":"p-1","uuid":"u-1","type":"user"}',
  '{"type":"assistant","uuid" : "u-2","message":{"content":[{"type":"text","text":"no \\"uuid\\":\\"fake\\" here"}]}}',
  '{"type":"summary","leafUuid":"u-1"}',
  '{"uuid":"ü-3é","type":"user"}',
  '{"uuid":"u-4","type":"us', // torn: the key is whole, so the value counts
];

describe('uuid fields', () => {
  it('finds the value of every "uuid" key and no other key that ends in uuid', () => {
    const found = new Set<string>();
    for (const line of LINES) addUuidFields(line, found);
    expect([...found]).toEqual(['u-1', 'u-2', 'ü-3é', 'u-4']);
  });

  it('reads the same values from the bytes of a range behind a handle, and none outside the range', () => {
    const text = `${LINES.join('\n')}\n`;
    const vol = Volume.fromJSON({ '/t.jsonl': text });
    const handle = memFs(vol).openRead('/t.jsonl');
    try {
      const size = Buffer.byteLength(text);
      expect([...uuidFieldsInRange(handle, 0, size)]).toEqual(['u-1', 'u-2', 'ü-3é', 'u-4']);
      const secondLine = Buffer.byteLength(`${LINES[0]}\n`);
      expect([...uuidFieldsInRange(handle, secondLine, secondLine + Buffer.byteLength(`${LINES[1]}\n`))]).toEqual(['u-2']);
    } finally {
      handle.close();
    }
  });
});
