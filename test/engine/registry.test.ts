/**
 * The per-folder uuid registry (a byte scan of every transcript of a
 * folder) is what `fix` asks for a parent its group does not hold. When the
 * group's files are every transcript of the folder, a scan could only find
 * uuids their indexes already hold: the registry is not asked, and the
 * files are not read again.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { classifyPath } from '../../src/core/discovery.js';
import type { RecordSummary } from '../../src/core/records.js';
import { indexFile, linkGroup, ProjectRegistry } from '../../src/engine/linter.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'cclint-registry-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const folder = path.join(root, 'projects', '-work-app');
fs.mkdirSync(folder, { recursive: true });
const row = (uuid: string, parentUuid: string | null): string =>
  JSON.stringify({ type: 'user', uuid, parentUuid, sessionId: 's', timestamp: '2025-01-01T00:00:00.000Z', message: { role: 'user', content: 'hi' } });
const broken = path.join(folder, '11111111-1111-4111-8111-111111111111.jsonl');
fs.writeFileSync(broken, `${row('a1', null)}\n${row('a2', 'elsewhere')}\n`);
const other = path.join(folder, '22222222-2222-4222-8222-222222222222.jsonl');
fs.writeFileSync(other, `${row('elsewhere', null)}\n`);

/** A registry that counts its scans of the folder. */
function countingRegistry(files: readonly string[]): { registry: ProjectRegistry; scans: () => number } {
  const registry = new ProjectRegistry(new Map([[folder, files]]));
  let scans = 0;
  const lookup = registry.lookup.bind(registry);
  registry.lookup = (dir, uuid, asking) => {
    scans++;
    return lookup(dir, uuid, asking);
  };
  return { registry, scans: () => scans };
}

describe('the uuid registry of a folder', () => {
  it('finds a parent in another transcript of the folder', () => {
    const index = indexFile(classifyPath(broken, root));
    const { registry, scans } = countingRegistry([broken, other]);
    linkGroup([index], registry);
    expect(scans()).toBe(1);
    expect(index.externalParent('elsewhere')).toEqual({ kind: 'other-session', path: other });
    expect(index.hasMissingParent(index.records[1] as RecordSummary)).toBe(false);
  });

  it('finds a uuid written with blanks around its colon, as a run over the folder (which parses the rows) does', () => {
    // Found by fixing mutated corpus files: a synthetic fixture's pretty-printed rows (`"uuid": "…"`)
    // were parents a run over the folder found and a file named alone did not.
    const pretty = path.join(folder, 'pretty', 'p.jsonl');
    fs.mkdirSync(path.dirname(pretty), { recursive: true });
    fs.writeFileSync(pretty, '{"type": "user", "uuid" :\t"spaced", "parentUuid": null}\n{"type": "user", "uuid": 7}\n{"uuid":"compact"}\n');
    const registry = new ProjectRegistry(new Map([[folder, [pretty]]]));
    expect(registry.lookup(folder, 'spaced', broken)).toBe(pretty);
    expect(registry.lookup(folder, 'compact', broken)).toBe(pretty);
    expect(registry.lookup(folder, '7', broken)).toBeUndefined();
  });

  it('answers with a file whose rows hold the uuid, not the one asking nor one whose damaged line holds it', () => {
    // The asking file's own damaged line may hold the uuid of the parent it cannot find (found by fixing
    // mutated corpus files), and so may another file's: a run over the folder finds neither, as it looks
    // parents up in the rows it parsed.
    const registry = new ProjectRegistry(new Map([[folder, [other, broken]]]));
    expect(registry.lookup(folder, 'elsewhere', other)).toBeUndefined();
    const torn = path.join(folder, 'torn', 't.jsonl');
    fs.mkdirSync(path.dirname(torn), { recursive: true });
    fs.writeFileSync(torn, '{"type":"user","uuid":"elsewhere","parentUuid":nu\n');
    const both = new ProjectRegistry(new Map([[folder, [torn, other]]]));
    expect(both.lookup(folder, 'elsewhere', torn)).toBe(other);
    expect(both.lookup(folder, 'elsewhere', broken)).toBe(other);
    expect(both.lookup(folder, 'elsewhere', other)).toBeUndefined();
  });

  it('answers the same after it has let go of the rows of files it confirmed earlier', () => {
    const many = Array.from({ length: 12 }, (_, i) => {
      const file = path.join(folder, 'many', `m${i}.jsonl`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, `${row(`many-${i}`, null)}\n`);
      return file;
    });
    const registry = new ProjectRegistry(new Map([[folder, many]]));
    for (const round of [1, 2]) many.forEach((file, i) => expect(registry.lookup(folder, `many-${i}`, broken), `round ${round}`).toBe(file));
  });

  it('reads a key cut by the boundary between two reads of a big file', () => {
    // The scan reads 8 MiB at a time: put every byte of the key, its blanks and its value on the boundary.
    const CHUNK = 8 * 1024 * 1024;
    const files: string[] = [];
    const key = '{"uuid" : "cut-0000"}';
    for (let shift = 0; shift < key.length; shift++) {
      const file = path.join(folder, 'big', `b${shift}.jsonl`);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      const padding = CHUNK - shift - 1; // the key's first byte lands `shift` bytes before the boundary
      const line = key.replace('0000', String(shift).padStart(4, '0'));
      fs.writeFileSync(file, `${'x'.repeat(padding - 1)}\n${line}\n`);
      files.push(file);
    }
    const registry = new ProjectRegistry(new Map([[folder, files]]));
    files.forEach((file, shift) => expect(registry.lookup(folder, `cut-${String(shift).padStart(4, '0')}`, broken), `shift ${shift}`).toBe(file));
  });

  it('is not asked when the group holds every transcript of the folder', () => {
    const index = indexFile(classifyPath(broken, root));
    const { registry, scans } = countingRegistry([broken]);
    expect(registry.covers(folder, new Set([broken]))).toBe(true);
    expect(registry.covers(folder, new Set([other]))).toBe(false);
    linkGroup([index], registry);
    expect(scans()).toBe(0);
    expect(index.externalParent('elsewhere')).toBeUndefined();
    expect(index.hasMissingParent(index.records[1] as RecordSummary)).toBe(true);
  });
});
