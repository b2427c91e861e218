/**
 * A session file named alone is judged as when its folder is named: a
 * parent it names may be in another session of the folder (Claude Code
 * copies the history of a continued conversation into a new session file
 * whose first row names a row of the old one), and `phantom-parent` says a
 * parent exists "nowhere it could", the folder included. Before, a file
 * named alone saw only itself: its continuation root was a phantom parent,
 * an error, and `fix` would have relinked it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { run, sandbox, type Sandbox } from '../support/cli.js';
import { BUNDLED_CORPUS, type Corpus, corpusFiles, describeSharedCorpus } from '../support/corpus.js';

const boxes: Sandbox[] = [];
afterEach(() => {
  for (const box of boxes.splice(0)) box.cleanup();
});

const OLD = 'aaaaaaaa-0000-4000-8000-000000000001';
const NEW = 'bbbbbbbb-0000-4000-8000-000000000002';

function row(sessionId: string, uuid: string, parentUuid: string | null, type: 'user' | 'assistant', second: number): string {
  const message =
    type === 'user'
      ? { role: 'user', content: [{ type: 'text', text: `question ${second}` }] }
      : { id: `msg_${uuid.slice(0, 8)}`, type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: `answer ${second}` }], stop_reason: 'end_turn' };
  return JSON.stringify({ parentUuid, isSidechain: false, userType: 'external', cwd: '/home/dev/app', sessionId, version: '2.0.0', type, message, uuid, timestamp: `2025-06-01T10:00:0${second}.000Z` });
}

/** A project folder with a session and its continuation, and the path of the continuation. */
function continuedProject(box: Sandbox): { folder: string; continuation: string } {
  const folder = path.join(box.configDir, 'projects', '-home-dev-app');
  fs.mkdirSync(folder, { recursive: true });
  const u = (n: number): string => `1111111${n}-0000-4000-8000-00000000000${n}`;
  fs.writeFileSync(path.join(folder, `${OLD}.jsonl`), `${[row(OLD, u(1), null, 'user', 1), row(OLD, u(2), u(1), 'assistant', 2)].join('\n')}\n`);
  const continuation = path.join(folder, `${NEW}.jsonl`);
  fs.writeFileSync(continuation, `${[row(NEW, u(3), u(2), 'user', 3), row(NEW, u(4), u(3), 'assistant', 4)].join('\n')}\n`);
  const old = new Date(Date.now() - 3_600_000);
  for (const f of fs.readdirSync(folder)) fs.utimesSync(path.join(folder, f), old, old);
  return { folder, continuation };
}

describe('a file named alone', () => {
  it('finds a parent in another session of its folder, as when the folder is named', async () => {
    const box = sandbox();
    boxes.push(box);
    const { folder, continuation } = continuedProject(box);
    const alone = await run(['check', '--format', 'json', continuation], { env: box.env, cwd: box.root });
    const withFolder = await run(['check', '--format', 'json', folder], { env: box.env, cwd: box.root });
    expect(alone.code).toBe(0);
    const result = (r: { stdout: string }) =>
      (JSON.parse(r.stdout) as { results: Array<{ filePath: string; messages: Array<{ ruleId: string }> }> }).results.find((x) => x.filePath.endsWith(`${NEW}.jsonl`));
    expect(result(alone)?.messages.map((m) => m.ruleId)).not.toContain('phantom-parent');
    expect(result(alone)).toEqual(result(withFolder));
    // Only the file named is reported; the other session was only looked in.
    expect((JSON.parse(alone.stdout) as { results: unknown[] }).results).toHaveLength(1);
  });

  it('finds the parent in the other session when its own damaged line holds that uuid too', async () => {
    // Found by fixing mutated corpus files: the continuation's own torn line held the parent's uuid,
    // and the folder's byte scan, which keeps the first file holding a uuid, answered with the asking
    // file itself. Alone the parent was a phantom (and `fix` relinked it); with the folder it was not.
    const box = sandbox();
    boxes.push(box);
    const folder = path.join(box.configDir, 'projects', '-home-dev-app');
    fs.mkdirSync(folder, { recursive: true });
    const u = (n: number): string => `1111111${n}-0000-4000-8000-00000000000${n}`;
    const later = 'cccccccc-0000-4000-8000-000000000003'; // scanned after the continuation
    fs.writeFileSync(path.join(folder, `${later}.jsonl`), `${[row(later, u(1), null, 'user', 1), row(later, u(2), u(1), 'assistant', 2)].join('\n')}\n`);
    const continuation = path.join(folder, `${NEW}.jsonl`);
    const torn = `{"type":"assistant","uuid":"${u(2)}","parentUuid":"${u(1)}","message":{"role":"assis`;
    fs.writeFileSync(continuation, `${[torn, row(NEW, u(3), u(2), 'user', 3), row(NEW, u(4), u(3), 'assistant', 4)].join('\n')}\n`);
    const old = new Date(Date.now() - 3_600_000);
    for (const f of fs.readdirSync(folder)) fs.utimesSync(path.join(folder, f), old, old);

    const alone = await run(['check', '--format', 'json', continuation], { env: box.env, cwd: box.root });
    const withFolder = await run(['check', '--format', 'json', folder], { env: box.env, cwd: box.root });
    const result = (r: { stdout: string }) =>
      (JSON.parse(r.stdout) as { results: Array<{ filePath: string; messages: Array<{ ruleId: string; line: number }> }> }).results.find((x) => x.filePath.endsWith(`${NEW}.jsonl`));
    expect(result(alone)?.messages.map((m) => [m.ruleId, m.line])).toEqual([['invalid-json', 1]]);
    expect(result(alone)).toEqual(result(withFolder));
  });

  it('reads a link among the other files as a run over the folder does', async () => {
    const box = sandbox();
    boxes.push(box);
    const { folder, continuation } = continuedProject(box);
    // The session holding the parent moves out of the folder; a link to it is left in its place.
    const outside = path.join(box.root, 'elsewhere.jsonl');
    fs.renameSync(path.join(folder, `${OLD}.jsonl`), outside);
    fs.symlinkSync(outside, path.join(folder, `${OLD}.jsonl`));
    const alone = await run(['check', '--format', 'json', continuation], { env: box.env, cwd: box.root });
    const withFolder = await run(['check', '--format', 'json', folder], { env: box.env, cwd: box.root });
    const result = (r: { stdout: string }) =>
      (JSON.parse(r.stdout) as { results: Array<{ filePath: string }> }).results.find((x) => x.filePath.endsWith(`${NEW}.jsonl`));
    expect(alone.stdout).not.toContain('"ruleId": "phantom-parent"');
    expect(result(alone)).toEqual(result(withFolder));
    // Nothing is written through it: the file behind the link is as it was.
    const before = fs.readFileSync(outside);
    await run(['fix', '--yes', continuation], { env: box.env, cwd: box.root });
    expect(fs.readFileSync(outside)).toEqual(before);
  });

  it('still has a phantom parent when no file of the folder holds it, and fix leaves a continuation alone', async () => {
    const box = sandbox();
    boxes.push(box);
    const { folder, continuation } = continuedProject(box);
    const before = fs.readFileSync(continuation);
    const fix = await run(['fix', '--yes', continuation], { env: box.env, cwd: box.root });
    expect(fix.code).toBe(0);
    expect(fs.readFileSync(continuation)).toEqual(before);
    fs.rmSync(path.join(folder, `${OLD}.jsonl`));
    const alone = await run(['check', '--format', 'json', continuation], { env: box.env, cwd: box.root });
    expect(alone.code).toBe(1);
    expect(alone.stdout).toContain('"ruleId": "phantom-parent"');
  });
});

/**
 * Every transcript of a corpus, named alone, gets the result it gets in a
 * run over the whole corpus. On the shared corpus, before: 10 of 179 did
 * not (subagent files whose parents are in their main session, a session
 * continued from another).
 */
function sameAloneAsInFolder(corpus: Corpus): void {
  it('gives each file named alone the result it gets in a run over the corpus', async () => {
    const box = sandbox();
    boxes.push(box);
    const results = async (target: string): Promise<Array<{ filePath: string }>> =>
      (JSON.parse((await run(['check', '--format', 'json', target], { env: box.env, cwd: corpus.root })).stdout) as { results: Array<{ filePath: string }> }).results;
    const all = new Map((await results(corpus.root)).map((r) => [r.filePath, r]));
    const files = corpusFiles(corpus);
    expect(files.length).toBeGreaterThan(5);
    const differ: string[] = [];
    for (const file of files) {
      const [alone] = await results(file.absolute);
      if (alone === undefined || JSON.stringify(alone) !== JSON.stringify(all.get(alone.filePath))) differ.push(file.relative);
    }
    expect(differ).toEqual([]);
  }, 120_000);
}

describe(`a file named alone, over the ${BUNDLED_CORPUS.label}`, () => sameAloneAsInFolder(BUNDLED_CORPUS));
describeSharedCorpus('a file named alone', sameAloneAsInFolder);
