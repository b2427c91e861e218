import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { classifyPath } from '../../src/core/discovery.js';
import { indexFile } from '../../src/engine/linter.js';
import { resumeModel } from '../../src/core/resume.js';
import { columns, cut, oneLine, pad, padStart, percent } from '../../src/commands/render.js';
import { type Sandbox, assistant, id, run, sandbox, sid, toolResult, user } from './fixture.js';

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

const REL = `claude/projects/-home-u-proj/${sid(1)}.jsonl`;

/** History 1–4, then a prompt whose parent exists nowhere: resume loads only 5–6. */
function writePhantom(): string {
  return box.write(`${sid(1)}.jsonl`, [
    user(1, null, 'first prompt\nwith two lines'),
    assistant(2, 1, 'Let me look.', { tools: [['toolu_1', 'Bash'], ['toolu_2', 'Read']] }),
    toolResult(3, 2, 'toolu_1'),
    toolResult(4, 3, 'toolu_2'),
    assistant(5, 4, 'done'),
    user(6, 99, 'second prompt'),
    assistant(7, 6, 'second answer'),
  ]);
}

describe('cclint show', () => {
  it('prints the messages resume loads, with a header, the cut and what is missing', async () => {
    writePhantom();
    const r = await run(['show', REL], box);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n')).toEqual([
      `${REL}: resume loads 2 of 7 messages (fidelity 28.5%); times UTC`,
      '⋯ history cut: the parent of line 6 (00000099) is not in the file',
      '03:06:00  user       second prompt',
      '03:07:00  assistant  second answer',
      '5 messages of the conversation are not loaded; `--intended` shows them, `cclint fix` repairs the break',
      '',
    ]);
  });

  it('--intended shows the whole conversation and marks what resume loses', async () => {
    writePhantom();
    const r = await run(['show', '--intended', REL], box);
    expect(r.code).toBe(0);
    expect(r.stdout.split('\n')).toEqual([
      `${REL}: 7 messages intended, resume loads 2 (fidelity 28.5%); - marks the 5 messages it loses; times UTC`,
      '- 03:01:00  user       first prompt⏎with two lines',
      '- 03:02:00  assistant  Let me look. → Bash, Read',
      '- 03:03:00  user       [tool result]',
      '- 03:04:00  user       [tool result]',
      '- 03:05:00  assistant  done',
      '  03:06:00  user       second prompt',
      '  03:07:00  assistant  second answer',
      '',
    ]);
  });

  it('--intended marks the earlier body of a reply written again under its uuid as lost: resume sends the later one in its place', async () => {
    const file = box.write(`${sid(1)}.jsonl`, [user(1, null, 'hello'), assistant(2, 1, 'first answer'), user(3, 2, 'and then?'), assistant(2, 1, 'second answer'), assistant(4, 3, 'done')]);
    const r = await run(['show', '--intended', REL], box);
    expect(r.stdout.split('\n')).toEqual([
      `${REL}: 5 messages intended, resume loads 4 (fidelity 80%); - marks the 1 message it loses; times UTC`,
      '  03:01:00  user       hello',
      '- 03:02:00  assistant  first answer',
      '  03:02:00  assistant  second answer',
      '  03:03:00  user       and then?',
      '  03:04:00  assistant  done',
      '',
    ]);
    const json = await run(['show', '--intended', '-f', 'json', file], box);
    const { messages } = JSON.parse(json.stdout) as { messages: Array<{ text: string; lost: boolean }> };
    expect(messages.filter((m) => m.lost).map((m) => m.text)).toEqual(['first answer']);
  });

  it('--format json lists exactly resumeModel(index).messages, in order', async () => {
    const file = writePhantom();
    const r = await run(['show', '--format', 'json', file], box);
    expect(r.code).toBe(0);
    const resume = resumeModel(indexFile(classifyPath(file, box.dir)));
    const expected = resume.messages.map((m) => ({ uuid: m.uuid, type: m.type, timestamp: m.timestamp, text: m.excerpt }));
    expect(JSON.parse(r.stdout)).toEqual({ messages: expected });
    expect(JSON.parse(r.stdout)).toEqual({
      messages: [
        { uuid: id(6), type: 'user', timestamp: '2026-01-05T03:06:00.000Z', text: 'second prompt' },
        { uuid: id(7), type: 'assistant', timestamp: '2026-01-05T03:07:00.000Z', text: 'second answer' },
      ],
    });
  });

  it('--intended --format json lists the intended messages, flagging the lost ones', async () => {
    const file = writePhantom();
    const r = await run(['show', '--intended', '-f', 'json', file], box);
    const { messages } = JSON.parse(r.stdout) as { messages: Array<{ uuid: string; lost: boolean }> };
    const resume = resumeModel(indexFile(classifyPath(file, box.dir)));
    expect(messages.map((m) => m.uuid)).toEqual(resume.intendedMessages.map((m) => m.uuid));
    expect(messages.length).toBeGreaterThan(resume.messages.length);
    expect(messages.filter((m) => !m.lost).map((m) => m.uuid)).toEqual([id(6), id(7)]);
    expect(messages.filter((m) => m.lost)).toHaveLength(5);
  });

  it('a healthy session loads everything and says nothing more', async () => {
    box.write(`${sid(1)}.jsonl`, [user(1, null, 'hello'), assistant(2, 1, 'hi')]);
    const r = await run(['show', REL], box);
    expect(r.stdout).toBe(
      `${REL}: resume loads 2 of 2 messages (fidelity 100%); times UTC\n03:01:00  user       hello\n03:02:00  assistant  hi\n`,
    );
  });

  it('finds a session by id, or by its first 8 characters, under CLAUDE_CONFIG_DIR/projects', async () => {
    writePhantom();
    box.write(`${sid(2)}.jsonl`, [user(1, null, 'other', { session: sid(2) })], '-home-u-other');
    const byId = await run(['show', '-f', 'json', sid(1)], box);
    const byPrefix = await run(['show', '-f', 'json', sid(1).slice(0, 8)], box);
    expect(byId.code).toBe(0);
    expect(byPrefix.stdout).toBe(byId.stdout);
    const other = await run(['show', sid(2)], box, { cwd: path.join(box.dir, 'elsewhere') });
    expect(other.stdout.split('\n')[0]).toBe(
      `${path.join(box.projects, '-home-u-other', `${sid(2)}.jsonl`)}: resume loads 1 of 1 message (fidelity 100%); times UTC`,
    );
  });

  it('an unknown session id is exit 2 with one line on stderr', async () => {
    writePhantom();
    const r = await run(['show', sid(9)], box);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`cclint: no session ${sid(9)} under ${box.projects} (pass a file path, or set CLAUDE_CONFIG_DIR)\n`);
  });

  it('a missing file path or a folder is exit 2', async () => {
    expect(await run(['show', 'nowhere/x.jsonl'], box)).toEqual({
      code: 2,
      stdout: '',
      stderr: 'cclint: nowhere/x.jsonl: no such file or folder\n',
    });
    expect(await run(['show', 'claude'], box)).toEqual({ code: 2, stdout: '', stderr: 'cclint: no session file found under claude\n' });
    box.write(`${sid(1)}.jsonl`, [user(1, null, 'a')]);
    const folder = await run(['show', 'claude'], box);
    expect(folder.code).toBe(2);
    expect(folder.stderr).toMatch(/^cclint: claude is a folder; give one session file or session id/);
  });

  it('two sessions matching a short prefix are ambiguous; shorter than 8 characters is no id', async () => {
    const twin = '5e550001-9999-4000-8000-000000000000';
    box.write(`${sid(1)}.jsonl`, [user(1, null, 'a')]);
    box.write(`${twin}.jsonl`, [user(1, null, 'b', { session: twin })], '-home-u-other');
    const r = await run(['show', '5e550001'], box);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `cclint: session 5e550001 is ambiguous: 2 files match under ${box.projects} (-home-u-other/${twin}.jsonl, -home-u-proj/${sid(1)}.jsonl); pass the file path\n`,
    );
    expect((await run(['show', '5e55000'], box)).stderr).toBe('cclint: 5e55000: no such file or folder\n');
  });

  it('cuts text to the terminal width on a TTY, and to 100 characters otherwise', async () => {
    const long = 'x'.repeat(115);
    box.write(`${sid(1)}.jsonl`, [user(1, null, long)]);
    const tty = await run(['show', '--no-color', REL], box, { tty: true, columns: 50 });
    expect(tty.stdout.split('\n')[1]).toBe(`03:01:00  user       ${'x'.repeat(27)}…`);
    expect(Array.from(tty.stdout.split('\n')[1] as string)).toHaveLength(49);
    const pipe = await run(['show', REL], box);
    expect(pipe.stdout.split('\n')[1]).toBe(`03:01:00  user       ${'x'.repeat(99)}…`);
  });

  it('colours only on a terminal, and never with --no-color or NO_COLOR', async () => {
    box.write(`${sid(1)}.jsonl`, [user(1, null, 'hello')]);
    expect((await run(['show', REL], box, { tty: true })).stdout).toContain('\u001b[');
    expect((await run(['show', '--no-color', REL], box, { tty: true })).stdout).not.toContain('\u001b[');
    expect((await run(['show', REL], box, { tty: true, env: { NO_COLOR: '1' } })).stdout).not.toContain('\u001b[');
    expect((await run(['show', REL], box)).stdout).not.toContain('\u001b[');
  });
});

describe('cclint show: dates and subagent transcripts', () => {
  it('prints the date with each time once the conversation spans days, and only times within one day', async () => {
    box.write(`${sid(1)}.jsonl`, [
      user(1, null, 'before midnight', { at: 20 * 3600 + 59 * 60 }),
      assistant(2, 1, 'after midnight', { at: 21 * 3600 + 1 }),
    ]);
    const r = await run(['show', REL], box);
    expect(r.stdout.split('\n').slice(1)).toEqual([
      '2026-01-05 23:59:00  user       before midnight',
      '2026-01-06 00:00:01  assistant  after midnight',
      '',
    ]);
    box.write(`${sid(1)}.jsonl`, [user(1, null, 'morning', { at: 60 }), assistant(2, 1, 'evening', { at: 20 * 3600 })]);
    expect((await run(['show', REL], box)).stdout.split('\n').slice(1, 3)).toEqual(['03:01:00  user       morning', '23:00:00  assistant  evening']);
  });

  it("shows a subagent's transcript as its thread, the rows tree marks *, and says resume does not load it", async () => {
    const rel = `claude/projects/-home-u-proj/${sid(1)}/subagents/agent-a1b2c3.jsonl`;
    box.write(`${sid(1)}/subagents/agent-a1b2c3.jsonl`, [
      user(1, null, 'Explore the repository', { sidechain: true }),
      assistant(2, 1, 'Looking.', { sidechain: true, tools: [['toolu_1', 'Read']] }),
      toolResult(3, 2, 'toolu_1', { sidechain: true }),
      assistant(4, 3, 'Found it.', { sidechain: true }),
    ]);
    const text = await run(['show', rel], box);
    expect(text.code).toBe(0);
    expect(text.stdout.split('\n')).toEqual([
      `${rel}: a subagent's transcript, which \`claude --resume\` does not load; its thread has 4 messages; times UTC`,
      '03:01:00  user       Explore the repository',
      '03:02:00  assistant  Looking. → Read',
      '03:03:00  user       [tool result]',
      '03:04:00  assistant  Found it.',
      '',
    ]);
    const json = JSON.parse((await run(['show', '--format', 'json', rel], box)).stdout) as { subagent: boolean; messages: Array<{ uuid: string }> };
    expect(json.subagent).toBe(true);
    expect(json.messages.map((m) => m.uuid)).toEqual([id(1), id(2), id(3), id(4)]);
    const tree = await run(['tree', rel], box);
    expect(tree.stdout.split('\n').slice(0, 3)).toEqual([
      `${rel}: a subagent's transcript, which \`claude --resume\` does not load; 4 records, 0 forks, 0 orphaned branches; oldest first, times UTC`,
      "legend: * the subagent's thread  o not on it  ! orphaned branch (score 0-1)  = compacted",
      '*  00000001 user       03:01:00  Explore the repository',
    ]);
    const starred = tree.stdout.split('\n').filter((l) => l.startsWith('*')).map((l) => l.split(/\s+/)[1]);
    expect(starred).toEqual(json.messages.map((m) => m.uuid.slice(0, 8)));
  });
});

describe('show rendering helpers', () => {
  it('oneLine shows newlines as ⏎, tabs as spaces and other control characters as visible escapes', () => {
    expect(oneLine('a\nb\r\nc\td\u0007\u001b[2J\u202e')).toBe('a⏎b⏎c d\\x07\\x1b[2J\\u202e');
  });
  it('cut ends in … only when it cuts', () => {
    expect(cut('abcdef', 6)).toBe('abcdef');
    expect(cut('abcdef', 4)).toBe('abc…');
  });
  it('cut, pad and padStart count terminal columns: two for a wide character or an emoji, none for a combining mark', () => {
    // An emoji and a CJK character take two columns each: 'a😀…' would be four.
    expect(cut('a😀b😀c', 3)).toBe('a…');
    expect(cut('a😀b😀c', 4)).toBe('a😀…');
    expect(cut('日本語のタイトル', 7)).toBe('日本語…');
    expect(columns('日本語')).toBe(6);
    expect(columns('e\u0301')).toBe(1);
    expect(columns('한국어 ｆｕｌｌ')).toBe(15);
    expect(pad('日本', 6)).toBe('日本  ');
    expect(padStart('🎉', 4)).toBe('  🎉');
    // Every row of a table padded to one width lines up on a terminal.
    const rows = ['plain', '日本語', 'émoji 🎉'].map((t) => `${pad(t, 10)}|`);
    expect(rows.map(columns)).toEqual([11, 11, 11]);
  });
  it('percent never rounds a loss up to 100%', () => {
    expect(percent(1)).toBe('100%');
    expect(percent(0.9996)).toBe('99.9%');
    expect(percent(0.5)).toBe('50%');
    expect(percent(0)).toBe('0%');
  });
});
