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
  registry.lookup = (dir, uuid) => {
    scans++;
    return lookup(dir, uuid);
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
