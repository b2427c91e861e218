/**
 * Content policy of `fix --dry-run --format json`: a planned edit carries
 * where it is, hashes, and only the fields it changes (path, old value, new
 * value), never the whole record: a secret in an untouched field of the
 * record being fixed does not appear in the plan.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { brokenSession } from '../support/big-session.js';
import { run, sandbox } from '../support/cli.js';

const box = sandbox();
afterAll(() => box.cleanup());
const SECRET = 'sk-ant-api03-never-print-me';

describe('fix --dry-run --format json', () => {
  it('shows the changed field of a fixed record, and nothing else of it', async () => {
    const sid = randomUUID();
    const dir = path.join(box.configDir, 'projects', '-tmp-app');
    fs.mkdirSync(dir, { recursive: true });
    // The broken row (a phantom parent) carries the secret in its text.
    const text = brokenSession(20_000, 100, sid).text.toString();
    const lines = text.split('\n');
    const broken = lines.findIndex((l) => {
      const r = l === '' ? undefined : (JSON.parse(l) as { parentUuid?: string; uuid?: string });
      return r?.parentUuid !== undefined && r.parentUuid !== null && !lines.some((m) => m.includes(`"uuid":"${r.parentUuid}"`));
    });
    expect(broken).toBeGreaterThan(0);
    lines[broken] = (lines[broken] as string).replace('"content":"question', `"content":"${SECRET} question`);
    fs.writeFileSync(path.join(dir, `${sid}.jsonl`), lines.join('\n'));
    const r = await run(['fix', '--dry-run', '--format', 'json', dir], { env: box.env, cwd: box.root });
    expect(r.stdout).not.toContain(SECRET);
    const plan = JSON.parse(r.stdout) as { files: Array<{ applied: Array<{ ruleId: string; edits: Array<Record<string, unknown>> }> }> };
    const edit = plan.files[0]?.applied[0]?.edits[0];
    expect(edit).toMatchObject({ kind: 'replace', line: broken + 1, lines: 1 });
    expect(edit?.sha256Before).toMatch(/^[0-9a-f]{64}$/);
    expect(edit?.changes).toEqual([{ path: 'parentUuid', before: expect.any(String), after: expect.any(String) }]);
  });
});
