/**
 * `check` says whether the request `claude --resume` sends would pass the
 * Messages API: `resume.apiValid` and `resume.apiViolations` in the JSON
 * report, one line under the file in stylish output.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assistant, jsonl, user, uuidOf } from '../helpers/records.js';
import { run, sandbox, type Sandbox } from '../support/cli.js';

describe('check: resume.apiValid', () => {
  let box: Sandbox;
  beforeEach(() => {
    box = sandbox();
  });
  afterEach(() => box.cleanup());

  it('is false with the rule and row for a blank prompt, true once fixed', async () => {
    const dir = path.join(box.root, 'p');
    fs.mkdirSync(dir);
    const file = path.join(dir, '1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f.jsonl');
    fs.writeFileSync(file, jsonl([user('u1'), assistant('a1', { parent: 'u1' }), user('u2', { parent: 'a1', text: '' }), assistant('a2', { parent: 'u2' })]));
    const r = await run(['check', '--format', 'json', file], { env: box.env, cwd: box.root });
    expect(r.code).toBe(1);
    const resume = (JSON.parse(r.stdout) as { results: Array<{ resume: Record<string, unknown> }> }).results[0]?.resume;
    expect(resume).toEqual({
      loaded: 4,
      total: 4,
      fidelity: 1,
      sdk: 4,
      apiValid: false,
      apiViolations: [{ rule: 'empty-text', line: 3, uuid: uuidOf('u2'), message: 'text content blocks must be non-empty' }],
    });
    const stylish = await run(['check', '--no-color', file], { env: box.env, cwd: box.root });
    expect(stylish.stdout).toContain('\n  resumed request fails at the API (400): empty-text\n');
    expect((await run(['fix', '--yes', '--force', file], { env: box.env, cwd: box.root })).code).toBe(0);
    const after = await run(['check', '--format', 'json', file], { env: box.env, cwd: box.root });
    expect((JSON.parse(after.stdout) as { results: Array<{ resume: { apiValid: boolean } }> }).results[0]?.resume.apiValid).toBe(true);
  });
});
