import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assistant, jsonl, PROJECT_FOLDER, resetClock, user, uuidOf } from '../helpers/records.js';
import { run, sandbox, writeSession, type Sandbox } from '../support/cli.js';

const stuck = uuidOf('stuck');

/** A healthy session, and one whose resumed request the API rejects (a prompt stored as ""). */
function writeBoth(box: Sandbox): void {
  resetClock();
  writeSession(box, PROJECT_FOLDER, `${uuidOf('healthy')}.jsonl`, jsonl([user('h1', { sessionId: uuidOf('healthy') }), assistant('h2', { parent: 'h1', sessionId: uuidOf('healthy') })]));
  writeSession(
    box,
    PROJECT_FOLDER,
    `${stuck}.jsonl`,
    jsonl([
      user('s1', { sessionId: stuck }),
      assistant('s2', { parent: 's1', sessionId: stuck }),
      user('s3', { parent: 's2', content: '', sessionId: stuck }),
      assistant('s4', { parent: 's3', sessionId: stuck }),
    ]),
  );
}

describe('sessions: apiValid', () => {
  let box: Sandbox;
  beforeEach(() => {
    box = sandbox();
  });
  afterEach(() => box.cleanup());

  it('--format json: false for a session whose resumed request the API rejects, true for a healthy one', async () => {
    writeBoth(box);
    const r = await run(['sessions', '--format', 'json'], { env: box.env, cwd: box.root });
    const rows = JSON.parse(r.stdout) as Array<{ sessionId: string; apiValid: boolean | null }>;
    expect(Object.fromEntries(rows.map((row) => [row.sessionId, row.apiValid]))).toEqual({ [uuidOf('healthy')]: true, [stuck]: false });
  });

  it('the table: an api column says 400 for the session whose resumed request fails, shown only when one does', async () => {
    writeBoth(box);
    const r = await run(['sessions', '--no-color'], { env: box.env, cwd: box.root });
    expect(r.stdout).toBe(
      [
        'session   title      last activity (UTC)  records  fidelity  api  score  errors  warnings',
        `${stuck.slice(0, 8)}  prompt s1  2026-01-05 03:00           4      100%  400   0.00       1         0`,
        `${uuidOf('healthy').slice(0, 8)}  prompt h1  2026-01-05 03:00           2      100%        0.00       0         0`,
        '',
      ].join('\n'),
    );
    fs.rmSync(path.join(box.configDir, 'projects', PROJECT_FOLDER, `${stuck}.jsonl`));
    const healthy = await run(['sessions', '--no-color'], { env: box.env, cwd: box.root });
    expect(healthy.stdout).toBe(
      [
        'session   title      last activity (UTC)  records  fidelity  score  errors  warnings',
        `${uuidOf('healthy').slice(0, 8)}  prompt h1  2026-01-05 03:00           2      100%   0.00       0         0`,
        '',
      ].join('\n'),
    );
  });

  it('--sort api puts the rejected first (:asc last); --broken keeps it', async () => {
    writeBoth(box);
    const ids = async (...args: string[]): Promise<string[]> =>
      (JSON.parse((await run(['sessions', '--format', 'json', ...args], { env: box.env, cwd: box.root })).stdout) as Array<{ sessionId: string }>).map((r) => r.sessionId);
    expect(await ids('--sort', 'api')).toEqual([stuck, uuidOf('healthy')]);
    expect(await ids('--sort', 'api:asc')).toEqual([uuidOf('healthy'), stuck]);
    expect(await ids('--broken')).toEqual([stuck]);
  });
});
