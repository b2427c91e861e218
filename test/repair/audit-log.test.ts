import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readAuditLog } from '../../src/repair/audit.js';
import { nodeFs, type FsPort } from '../../src/repair/fs-port.js';

const entry = (id: string) => ({ id, time: '2026-11-27T00:00:00.000Z', file: '/p/s.jsonl', sha256Before: 'a', sha256After: 'b', backup: '/h/b', fixes: [] });

/** A port whose audit log is `bytes` (nothing else is read). */
function logOf(bytes: Buffer): FsPort {
  return { ...nodeFs(), readFile: () => bytes };
}

describe('readAuditLog', () => {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('reads every entry line, skipping blank, torn and foreign lines, after a byte-order mark', () => {
    const text = `\uFEFF${JSON.stringify(entry('a1'))}\n\n  ${JSON.stringify(entry('a2'))}\r\nnot json\n{"id":"x"}\n[1]\n${JSON.stringify(entry('a3')).slice(0, 30)}`;
    expect(readAuditLog(logOf(Buffer.from(text)), 'audit.jsonl').map((e) => e.id)).toEqual(['a1', 'a2']);
  });

  it('reads a log longer than the longest string V8 can make (the entries around 600 MB of junk lines)', () => {
    // Two lines of 300 MB each: the whole log as one string (the way it was read) throws.
    const junk = Buffer.alloc(300 * 1024 * 1024, 0x78);
    const bytes = Buffer.concat([Buffer.from(`${JSON.stringify(entry('first'))}\n`), junk, Buffer.from('\n'), junk, Buffer.from(`\n${JSON.stringify(entry('last'))}\n`)]);
    expect(() => bytes.toString('utf8')).toThrow();
    expect(readAuditLog(logOf(bytes), 'audit.jsonl').map((e) => e.id)).toEqual(['first', 'last']);
  });

  it('is empty for a log that does not exist, and names a log it cannot read', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cclint-audit-'));
    made.push(dir);
    expect(readAuditLog(nodeFs(), path.join(dir, 'audit.jsonl'))).toEqual([]);
    fs.mkdirSync(path.join(dir, 'folder.jsonl'));
    expect(() => readAuditLog(nodeFs(), path.join(dir, 'folder.jsonl'))).toThrow(/cannot read the audit log .*folder\.jsonl/);
  });
});
