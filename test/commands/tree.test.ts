import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { classifyPath } from '../../src/core/discovery.js';
import { indexFile } from '../../src/engine/linter.js';
import type { RecordSummary } from '../../src/core/records.js';
import { resumeModel } from '../../src/core/resume.js';
import { branchScore } from '../../src/core/score.js';
import { buildTree } from '../../src/commands/tree.js';
import { type Sandbox, assistant, boundary, id, jsonl, progress, run, sandbox, sid, toolResult, user } from './fixture.js';

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

const REL = `claude/projects/-home-u-proj/${sid(1)}.jsonl`;
const HEADER = 'legend: * loaded on resume  o not loaded  ! orphaned branch (score 0-1)  = compacted';

function rows(stdout: string): string[] {
  return stdout.split('\n').slice(2, -1);
}

describe('cclint tree', () => {
  it('prints the date with each time once the session spans days', async () => {
    box.write(`${sid(1)}.jsonl`, [user(1, null, 'late', { at: 20 * 3600 + 59 * 60 }), assistant(2, 1, 'next day', { at: 45 * 3600 })]);
    expect(rows((await run(['tree', REL], box)).stdout)).toEqual([
      '*  00000001 user       2026-01-05 23:59:00  late',
      '*  00000002 assistant  2026-01-07 00:00:00  next day',
    ]);
  });

  it('draws the main thread with *, a fork with |\\ and the abandoned branch with o', async () => {
    box.write(`${sid(1)}.jsonl`, [
      user(1, null, 'first prompt'),
      assistant(2, 1, 'answer one'),
      user(3, 2, 'abandoned edit'),
      assistant(4, 3, 'abandoned answer'),
      user(5, 2, 'edited prompt'),
      progress(6, 5),
      assistant(7, 6, 'reply', { tools: [['t1', 'Read']] }),
      toolResult(8, 7, 't1'),
      assistant(9, 8, 'all done'),
    ]);
    const r = await run(['tree', REL], box);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n').slice(0, 2)).toEqual([
      `${REL}: 8 records, 1 fork, 0 orphaned branches; oldest first, times UTC`,
      HEADER,
    ]);
    expect(rows(r.stdout)).toEqual([
      '*    00000001 user       03:01:00  first prompt',
      '*    00000002 assistant  03:02:00  answer one',
      '|\\  (rewind)',
      '| o  00000003 user       03:03:00  abandoned edit',
      '| o  00000004 assistant  03:04:00  abandoned answer',
      '*    00000005 user       03:05:00  edited prompt',
      '*    00000007 assistant  03:07:00  reply → Read',
      '*    00000008 user       03:08:00  [tool result]',
      '*    00000009 assistant  03:09:00  all done',
    ]);
  });

  it('marks an orphaned branch with ! and its score, and a compaction with =', async () => {
    box.write(`${sid(1)}.jsonl`, [
      user(1, null, 'first prompt'),
      assistant(2, 1, 'answer'),
      boundary(3, 2),
      user(4, 3, 'summary of the above', { extra: { isCompactSummary: true } }),
      assistant(5, 4, 'carrying on'),
      // Written 2 s after the last record with a null parent: a lost link.
      user(6, null, 'next prompt', { at: 5 * 60 + 2 }),
      assistant(7, 6, 'next answer'),
    ]);
    const r = await run(['tree', REL], box);
    expect(r.stdout.split('\n')[0]).toBe(`${REL}: 7 records, 0 forks, 1 orphaned branch; oldest first, times UTC`);
    expect(rows(r.stdout)).toEqual([
      'o  00000001 user       03:01:00  first prompt',
      'o  00000002 assistant  03:02:00  answer',
      '=  00000003 system     03:03:00  compacted',
      'o  00000004 user       03:04:00  summary of the above',
      'o  00000005 assistant  03:05:00  carrying on',
      '!  00000006 user       03:05:02  [orphaned: parentUuid null; score 0.60] next prompt',
      '*  00000007 assistant  03:07:00  next answer',
    ]);
  });

  it('marks a branch whose parent is missing, and scores a detached one higher', async () => {
    box.write(`${sid(1)}.jsonl`, [
      user(1, null, 'first prompt'),
      assistant(2, 1, 'answer'),
      user(3, 'ffffffff-0000-4000-8000-000000000000', 'stray prompt'),
      assistant(4, 3, 'stray answer'),
      user(5, 2, 'main prompt'),
      assistant(6, 5, 'main answer'),
    ]);
    const r = await run(['tree', REL], box);
    expect(rows(r.stdout)).toEqual([
      '*  00000001 user       03:01:00  first prompt',
      '*  00000002 assistant  03:02:00  answer',
      '*  00000005 user       03:05:00  main prompt',
      '*  00000006 assistant  03:06:00  main answer',
      '!  00000003 user       03:03:00  [orphaned: parent ffffffff missing; score 0.50] stray prompt',
      'o  00000004 assistant  03:04:00  stray answer',
    ]);
  });

  it('opens one |\\ per side branch and nests forks inside forks', async () => {
    box.write(`${sid(1)}.jsonl`, [
      user(1, null, 'root'),
      assistant(2, 1, 'side one'),
      user(3, 2, 'side one, nested a'),
      user(4, 2, 'side one, nested b'),
      assistant(5, 1, 'side two'),
      assistant(6, 1, 'main line'),
      user(7, 6, 'main goes on'),
    ]);
    const r = await run(['tree', REL], box);
    expect(r.stdout.split('\n')[0]).toBe(`${REL}: 7 records, 2 forks, 0 orphaned branches; oldest first, times UTC`);
    expect(rows(r.stdout)).toEqual([
      '*      00000001 user       03:01:00  root',
      '|\\  (rewind)',
      '| o    00000002 assistant  03:02:00  side one',
      '| |\\  (rewind)',
      '| | o  00000003 user       03:03:00  side one, nested a',
      '| o    00000004 user       03:04:00  side one, nested b',
      '|\\  (rewind)',
      '| o    00000005 assistant  03:05:00  side two',
      '*      00000006 assistant  03:06:00  main line',
      '*      00000007 user       03:07:00  main goes on',
    ]);
  });

  it('collapses linear runs of more than 8 records unless --all', async () => {
    const records = [user(1, null, 'p1')];
    for (let n = 2; n <= 12; n++) records.push(n % 2 === 0 ? assistant(n, n - 1, `a${n}`) : user(n, n - 1, `p${n}`));
    box.write(`${sid(1)}.jsonl`, records);
    const collapsed = rows((await run(['tree', REL], box)).stdout);
    expect(collapsed).toEqual([
      '*  00000001 user       03:01:00  p1',
      '*  00000002 assistant  03:02:00  a2',
      '*  00000003 user       03:03:00  p3',
      '*  00000004 assistant  03:04:00  a4',
      ':  … 4 more',
      '*  00000009 user       03:09:00  p9',
      '*  00000010 assistant  03:10:00  a10',
      '*  00000011 user       03:11:00  p11',
      '*  00000012 assistant  03:12:00  a12',
    ]);
    const all = rows((await run(['tree', '--all', REL], box)).stdout);
    expect(all).toHaveLength(12);
    expect(all[5]).toBe('*  00000006 assistant  03:06:00  a6');
  });

  it('does not collapse a run of exactly 8', async () => {
    const records = [user(1, null, 'p1')];
    for (let n = 2; n <= 10; n++) records.push(n % 2 === 0 ? assistant(n, n - 1, `a${n}`) : user(n, n - 1, `p${n}`));
    box.write(`${sid(1)}.jsonl`, records);
    expect(rows((await run(['tree', REL], box)).stdout)).toHaveLength(10);
  });

  it('colours glyphs on a terminal only, and --no-color turns it off', async () => {
    box.write(`${sid(1)}.jsonl`, [user(1, null, 'hello'), assistant(2, 1, 'hi')]);
    const tty = await run(['tree', REL], box, { tty: true });
    expect(tty.stdout.split('\n')[2]).toBe(
      '\u001b[32m*\u001b[39m  \u001b[33m00000001\u001b[39m user       \u001b[2m03:01:00\u001b[22m  hello',
    );
    expect((await run(['tree', '--no-color', REL], box, { tty: true })).stdout).not.toContain('\u001b[');
    expect((await run(['tree', REL], box)).stdout).not.toContain('\u001b[');
  });

  it('an unknown session is exit 2', async () => {
    const r = await run(['tree', sid(7)], box);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`cclint: no session ${sid(7)} under ${box.projects} (pass a file path, or set CLAUDE_CONFIG_DIR)\n`);
  });
});

describe('buildTree and branchScore', () => {
  function load(records: Array<Record<string, unknown>>) {
    const file = box.write(`${sid(1)}.jsonl`, records);
    const index = indexFile(classifyPath(file, box.dir));
    const byId = (n: number): RecordSummary => index.byUuid.get(id(n)) as RecordSummary;
    return { index, byId };
  }

  it('scores each signal: null parent 0.4, within 5 s 0.2, sidechain 0.3, detached 0.1', () => {
    const { index, byId } = load([
      user(1, null, 'first'),
      assistant(2, 1, 'answer'),
      user(3, null, 'restart, linked nowhere', { at: 2 * 60 + 3 }),
      assistant(4, 'eeeeeeee-0000-4000-8000-000000000000', 'sidechain stray', { sidechain: true }),
      user(5, 2, 'main'),
    ]);
    expect(branchScore(index, byId(1))).toBe(0);
    // null parent, 3 s after the answer, not on the resumed chain
    expect(branchScore(index, byId(3))).toBe(0.7);
    // missing parent, sidechain, detached (4 minutes after its predecessor)
    expect(branchScore(index, byId(4))).toBe(0.8);
  });

  it('lists every chain record once and skips progress rows', () => {
    const { index } = load([user(1, null, 'a'), progress(2, 1), assistant(3, 2, 'b'), progress(4, 3)]);
    const tree = buildTree(index, resumeModel(index), { all: true });
    const shown = tree.lines.flatMap((l) => (l.kind === 'record' ? [l.node.record.uuid] : []));
    expect(shown).toEqual([id(1), id(3)]);
    expect(tree.forks).toBe(0);
    expect(tree.orphans).toBe(0);
  });

  it('survives a parent cycle, cutting it at its first record', () => {
    const { index } = load([user(1, null, 'a'), assistant(2, 3, 'b'), user(3, 2, 'c')]);
    const tree = buildTree(index, resumeModel(index), { all: true });
    const records = tree.lines.flatMap((l) => (l.kind === 'record' ? [l.node] : []));
    expect(records.map((n) => n.record.uuid)).toEqual([id(1), id(2), id(3)]);
    expect(records[1]?.glyph).toBe('!');
    expect(records[1]?.orphan?.reason).toBe('parent cycle');
  });
});

describe('a file outside the layout', () => {
  it('has its parents looked up in its folder, as check does: a parent in a sibling file is no orphaned branch', async () => {
    // A continuation and the session it continues, copied out of the projects folder.
    const dir = path.join(box.dir, 'downloads');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'first.jsonl'), jsonl([user(1, null, 'hello'), assistant(2, 1, 'hi')]));
    fs.writeFileSync(path.join(dir, 'second.jsonl'), jsonl([user(3, 2, 'again'), assistant(4, 3, 'yes')]));
    // Folders below it are not the file's: they are not walked (check does not walk them either).
    fs.mkdirSync(path.join(dir, 'deep', 'er'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'deep', 'er', 'other.jsonl'), jsonl([user(5, null, 'elsewhere')]));
    const listed = vi.spyOn(fs, 'readdirSync');
    const tree = await run(['tree', 'downloads/second.jsonl'], box);
    const walked = listed.mock.calls.map(([p]) => String(p));
    listed.mockRestore();
    // (Its folder is listed, and each subfolder's `subagents` looked for, as for any project folder.)
    expect(walked.filter((p) => p === path.join(dir, 'deep') || p.startsWith(path.join(dir, 'deep', 'er')))).toEqual([]);
    expect(tree.stdout.split('\n')[0]).toBe('downloads/second.jsonl: 2 records, 0 forks, 0 orphaned branches; oldest first, times UTC');
    const check = await run(['check', 'downloads/second.jsonl', '--format', 'json'], box);
    expect(JSON.parse(check.stdout).results[0].messages.filter((m: { severity: string }) => m.severity !== 'info')).toEqual([]);
    // Without the file that holds the parent, both say the branch is cut off.
    fs.rmSync(path.join(dir, 'first.jsonl'));
    const alone = await run(['tree', 'downloads/second.jsonl'], box);
    expect(alone.stdout.split('\n')[0]).toBe('downloads/second.jsonl: 2 records, 0 forks, 1 orphaned branch; oldest first, times UTC');
    const checkAlone = await run(['check', 'downloads/second.jsonl', '--format', 'json'], box);
    expect(JSON.parse(checkAlone.stdout).results[0].messages.map((m: { ruleId: string }) => m.ruleId)).toContain('phantom-parent');
  });
});
