import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type SessionRow, placeRows } from '../../src/commands/sessions.js';
import { type Sandbox, assistant, run, sandbox, sid, toolResult, user } from './fixture.js';

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

/** Five sessions in one project (two continuation chains) and one in another project. */
function writeProjects(): void {
  // A: titled by a custom-title record.
  box.write(`${sid(1)}.jsonl`, [
    user(1, null, 'origin prompt'),
    assistant(2, 1, 'origin answer'),
    { type: 'custom-title', customTitle: 'Fix the login bug', sessionId: sid(1) },
  ]);
  // B continues A: its first records are copies that carry A's sessionId.
  box.write(`${sid(2)}.jsonl`, [
    user(1, null, 'origin prompt', { at: 60 }),
    assistant(2, 1, 'origin answer', { at: 120 }),
    user(3, 2, 'continued prompt', { session: sid(2), at: 7200 }),
    assistant(4, 3, 'delegating', { session: sid(2), at: 7201, tools: [['tz', 'Task']] }),
    toolResult(5, 4, 'tz', { session: sid(2), at: 7300 }),
  ]);
  // B's subagent, whose second record names a parent that exists nowhere (bridged by time: a warning).
  box.write(`${sid(2)}/subagents/agent-abc.jsonl`, [
    user(101, null, 'sub prompt', { session: sid(2), sidechain: true, at: 7210, extra: { agentId: 'abc' } }),
    assistant(102, 999, 'sub answer', { session: sid(2), sidechain: true, at: 7211, extra: { agentId: 'abc' } }),
  ]);
  // C and D share a slug: D continues C.
  box.write(`${sid(3)}.jsonl`, [
    user(201, null, 'slug one', { session: sid(3), at: 50, extra: { slug: 'happy-fox' } }),
    { type: 'ai-title', aiTitle: 'Slugged work', sessionId: sid(3) },
  ]);
  box.write(`${sid(4)}.jsonl`, [
    user(301, null, '<command-name>/clear</command-name>', { session: sid(4), at: 9000, extra: { slug: 'happy-fox' } }),
    user(302, 301, 'a prompt that goes on well past the forty characters of the title column', {
      session: sid(4),
      at: 9001,
      extra: { slug: 'happy-fox' },
    }),
  ]);
  // E: history cut by a phantom parent; titled by a summary record.
  box.write(`${sid(6)}.jsonl`, [
    user(501, null, 'broken start', { session: sid(6), at: 3000 }),
    assistant(502, 501, 'answer', { session: sid(6), at: 3060 }),
    user(503, 888, 'after the break', { session: sid(6), at: 3600 }),
    assistant(504, 503, 'answer again', { session: sid(6), at: 3660 }),
    { type: 'summary', summary: 'Summarised work', leafUuid: 'x' },
  ]);
  box.write(`${sid(5)}.jsonl`, [user(401, null, 'other project', { session: sid(5), at: 5000, cwd: '/home/u/other' })], '-home-u-other');
}

describe('cclint sessions', () => {
  it('prints one row per session, newest conversation first, continuations under their origin', async () => {
    writeProjects();
    const r = await run(['sessions'], box);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n')).toEqual([
      'session   project        title                                     last activity (UTC)  records  fidelity  score  errors  warnings',
      '5e550003  -home-u-proj   Slugged work                              2026-01-05 03:00           2      100%   0.00       0         0',
      '5e550004  -home-u-proj   ↳ a prompt that goes on well past the f…  2026-01-05 05:30           2      100%   0.00       0         0',
      '5e550001  -home-u-proj   Fix the login bug                         2026-01-05 03:02           3      100%   0.00       0         0',
      '5e550002  -home-u-proj   ↳ origin prompt                           2026-01-05 05:01           7      100%   1.00       0         1',
      '5e550005  -home-u-other  other project                             2026-01-05 04:23           1      100%   0.00       0         0',
      '5e550006  -home-u-proj   Summarised work                           2026-01-05 04:01           5       50%   1.00       1         0',
      '',
    ]);
  });

  it('--broken keeps only sessions with a finding above info, a resume loss or a score above 0', async () => {
    writeProjects();
    const r = await run(['sessions', '--broken'], box);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').map((l) => l.slice(0, 8))).toEqual(['session ', '5e550002', '5e550006', '']);
    // Its origin left out, a continuation stands alone.
    expect(r.stdout).not.toContain('↳');
    fs.rmSync(path.join(box.projects, '-home-u-proj'), { recursive: true });
    expect((await run(['sessions', '--broken'], box)).stdout).toBe('no session with something wrong among 1\n');
  });

  it('--sort orders a flat list by a column, each its own way unless :asc or :desc says otherwise', async () => {
    writeProjects();
    const order = async (...args: string[]) =>
      (JSON.parse((await run(['sessions', '--format', 'json', ...args], box)).stdout) as Array<{ sessionId: string }>).map((x) =>
        x.sessionId.slice(0, 8),
      );
    expect(await order('--sort', 'score')).toEqual(['5e550002', '5e550006', '5e550003', '5e550004', '5e550001', '5e550005']);
    expect(await order('--sort', 'fidelity')).toEqual(['5e550006', '5e550003', '5e550004', '5e550001', '5e550002', '5e550005']);
    expect(await order('--sort', 'records')).toEqual(['5e550002', '5e550006', '5e550001', '5e550003', '5e550004', '5e550005']);
    expect(await order('--sort', 'last:asc')).toEqual(['5e550003', '5e550001', '5e550006', '5e550005', '5e550002', '5e550004']);
    expect(await order('--sort', 'title:desc')).toEqual(['5e550006', '5e550003', '5e550005', '5e550002', '5e550001', '5e550004']);
    const table = await run(['sessions', '--sort', 'errors'], box);
    expect(table.stdout.split('\n')[1]).toMatch(/^5e550006 {2}-home-u-proj {3}Summarised work/);
    expect(table.stdout).not.toContain('↳');
  });

  it('--sort names the closest column for a misspelt one (exit 2); -o writes the report to a file', async () => {
    writeProjects();
    const bad = await run(['sessions', '--sort', 'scroe'], box);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('unknown column "scroe" (did you mean "score"?); one of session, project, title, last, records, fidelity, api, score, errors, warnings');
    expect((await run(['sessions', '--sort', 'score:up'], box)).code).toBe(2);
    const written = await run(['sessions', '-f', 'json', '-o', 'out/sessions.json'], box);
    expect(written).toEqual({ code: 0, stdout: '', stderr: '' });
    expect((JSON.parse(fs.readFileSync(path.join(box.dir, 'out', 'sessions.json'), 'utf8')) as unknown[]).length).toBe(6);
  });

  it('--format json gives the same rows as objects', async () => {
    writeProjects();
    const r = await run(['sessions', '--format', 'json', path.join('claude', 'projects', '-home-u-proj')], box);
    expect(r.code).toBe(0);
    const list = JSON.parse(r.stdout) as Array<Record<string, unknown>>;
    expect(list.map((s) => s.sessionId)).toEqual([sid(3), sid(4), sid(1), sid(2), sid(6)]);
    expect(list[3]).toEqual({
      sessionId: sid(2),
      filePath: `claude/projects/-home-u-proj/${sid(2)}.jsonl`,
      project: '-home-u-proj',
      title: 'origin prompt',
      lastActivity: '2026-01-05T05:01:40.000Z',
      records: 7,
      fidelity: 1,
      apiValid: true,
      score: 1,
      errors: 0,
      warnings: 1,
      continues: sid(1),
    });
    expect(list[4]).toMatchObject({ title: 'Summarised work', fidelity: 0.5, errors: 1, warnings: 0, continues: null });
  });

  it('counts the same findings as check (all rules, default severities), subagents included', async () => {
    writeProjects();
    const check = JSON.parse((await run(['check', '--format', 'json'], box)).stdout) as {
      results: Array<{ filePath: string; errorCount: number; warningCount: number }>;
    };
    const sessions = JSON.parse((await run(['sessions', '--format', 'json'], box)).stdout) as Array<{
      sessionId: string;
      errors: number;
      warnings: number;
    }>;
    for (const s of sessions) {
      const files = check.results.filter((f) => f.filePath.includes(s.sessionId));
      expect(files.length).toBeGreaterThan(0);
      expect(s.errors).toBe(files.reduce((n, f) => n + f.errorCount, 0));
      expect(s.warnings).toBe(files.reduce((n, f) => n + f.warningCount, 0));
    }
  });

  it('a named path that cannot be read is exit 2, the rest is still reported', async () => {
    writeProjects();
    const r = await run(['sessions', path.join('claude', 'projects', '-home-u-other'), 'missing'], box);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('cclint: missing: no such file or folder\n');
    expect(r.stdout.split('\n')[1]).toMatch(/^5e550005 {2}other project/);
  });

  it('an empty projects folder is exit 2 with one line saying so; so is a missing one', async () => {
    const none = `cclint: no session file found under ${box.projects}\n`;
    expect(await run(['sessions'], box)).toEqual({ code: 2, stdout: 'no sessions found\n', stderr: none });
    expect(await run(['sessions', '-f', 'json'], box)).toEqual({ code: 2, stdout: '[]\n', stderr: none });
    fs.rmSync(box.projects, { recursive: true });
    const r = await run(['sessions'], box);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `cclint: no Claude Code projects folder at ${box.projects}; pass a path, or set CLAUDE_CONFIG_DIR to your Claude Code config folder\n`,
    );
  });
});

describe('placeRows', () => {
  const row = (n: number, lastMinute: number, more: Partial<SessionRow> = {}): SessionRow => ({
    sessionId: sid(n),
    filePath: `${sid(n)}.jsonl`,
    projectDir: '/p',
    projectFolderName: 'p',
    title: `t${n}`,
    lastTime: lastMinute * 60_000,
    firstTime: 0,
    records: 1,
    fidelity: 1,
    score: 0,
    errors: 0,
    warnings: 0,
    slug: undefined,
    foreignSessions: new Map(),
    continuedIn: [],
    ...more,
  });

  it('follows continued-in records and nests chains one level per step', () => {
    const a = row(1, 1, { continuedIn: [sid(2)] });
    const b = row(2, 2, { continuedIn: [sid(3)] });
    const c = row(3, 3);
    const d = row(4, 10);
    expect(placeRows([c, a, d, b]).map((p) => [p.row.sessionId, p.depth, p.continues])).toEqual([
      [sid(4), 0, undefined],
      [sid(1), 0, undefined],
      [sid(2), 1, sid(1)],
      [sid(3), 2, sid(2)],
    ]);
  });

  it('never links a cycle', () => {
    const a = row(1, 1, { continuedIn: [sid(2)] });
    const b = row(2, 2, { continuedIn: [sid(1)] });
    const placed = placeRows([a, b]);
    expect(placed).toHaveLength(2);
    expect(placed.filter((p) => p.depth === 0)).toHaveLength(1);
  });

  it('sessions without a timestamp go last', () => {
    expect(placeRows([row(1, Number.NaN), row(2, 5)]).map((p) => p.row.sessionId)).toEqual([sid(2), sid(1)]);
  });
});
