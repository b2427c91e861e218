import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { classifyPath } from '../../src/core/discovery.js';
import { jsonText } from '../../src/core/json-text.js';
import { resumeModel } from '../../src/core/resume.js';
import { conversationOf } from '../../src/core/views/conversation.js';
import { redact } from '../../src/core/views/redact.js';
import { indexFile } from '../../src/engine/linter.js';
import { conversationMarkdown, conversationMarkdownPieces } from '../../src/formatters/markdown.js';
import { PROJECT, type Sandbox, assistant, run, sandbox, sid, toolResult, user } from './fixture.js';

let box: Sandbox;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

const REL = `claude/projects/-home-u-proj/${sid(1)}.jsonl`;

// Fake secrets of the well-known shapes (none is a real credential).
const FAKE = {
  anthropic: 'sk-ant-api03-' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8S9t0'.repeat(2),
  openai: 'sk-proj-' + 'Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0',
  aws: 'AKIA' + 'IOSFODNN7EXAMPLE',
  awsSecret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
  github: 'ghp_' + '0123456789abcdefghijABCDEFGHIJ012345',
  bearer: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl',
  urlPassword: 'hunter2secret',
  privateKey: '-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAfakefakefake\nfakefakefake==\n-----END RSA PRIVATE KEY-----',
};

describe('cclint export', () => {
  it('keeps a folder and a command holding backticks each one code span', async () => {
    const cwd = '/home/u/we`ird ``dir';
    box.write(`${sid(1)}.jsonl`, [user(1, null, 'hello', { cwd }), assistant(2, 1, 'hi', { cwd })]);
    const r = await run(['export', REL], box);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`- Folder: \`\`\`${cwd}\`\`\`\n`);
    // The command quotes the folder for the shell; its longest run is two backticks too.
    const resume = /^- Resume: (.*)$/m.exec(r.stdout)?.[1] ?? '';
    expect(resume.startsWith('```') && resume.endsWith('```') && !resume.startsWith('````')).toBe(true);
    expect(resume.slice(3, -3)).toContain(cwd);
  });

  it('fences a tool output holding more backtick runs than a call takes arguments (300,000), with a fence longer than its longest run', async () => {
    const output = `${'`x '.repeat(300_000)}and \`\`\`\`\` five`;
    box.write(`${sid(1)}.jsonl`, [
      user(1, null, 'run it'),
      assistant(2, 1, '', { tools: [['toolu_1', 'Bash']] }),
      {
        ...toolResult(3, 2, 'toolu_1'),
        message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: output }] },
      },
    ]);
    const r = await run(['export', REL], box);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`\`\`\`\`\`\`\n${output}\n\`\`\`\`\`\``);
  });

  it('writes every message show lists, in order, as Markdown with a heading per message', async () => {
    box.write(`${sid(1)}.jsonl`, [
      user(1, null, 'first prompt'),
      assistant(2, 1, 'answer one'),
      user(3, 2, 'abandoned edit'),
      assistant(4, 3, 'abandoned answer'),
      user(5, 2, 'edited prompt'),
      assistant(6, 5, 'let me read', { tools: [['t1', 'Read']] }),
      toolResult(7, 6, 't1'),
      assistant(8, 7, 'all done', { extra: { message: { id: 'msg_8', role: 'assistant', content: [{ type: 'thinking', thinking: 'secret musing', signature: 'x' }, { type: 'text', text: 'all done' }] } } }),
    ]);
    const show = JSON.parse((await run(['show', '--format', 'json', REL], box)).stdout) as { messages: Array<{ uuid: string; text: string }> };
    const r = await run(['export', REL], box);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const headings = r.stdout.split('\n').filter((l) => l.startsWith('## '));
    expect(headings).toEqual([
      '## 1. User · 2026-01-05 03:01:00 UTC',
      '## 2. Claude · 2026-01-05 03:02:00 UTC',
      '## 3. User · 2026-01-05 03:05:00 UTC',
      '## 4. Claude · 2026-01-05 03:06:00 UTC',
      '## 5. Tool result · 2026-01-05 03:07:00 UTC',
      '## 6. Claude · 2026-01-05 03:08:00 UTC',
    ]);
    expect(headings).toHaveLength(show.messages.length);
    let at = 0;
    for (const m of show.messages.filter((m) => m.text !== '')) {
      const found = r.stdout.indexOf(m.text, at);
      expect(found, m.text).toBeGreaterThan(at);
      at = found;
    }
    expect(r.stdout).not.toContain('abandoned');
    expect(r.stdout).toContain('<details><summary>Tool call: Read</summary>\n\n```json\n{}\n```\n\n</details>');
    expect(r.stdout).toContain('<details><summary>Tool result</summary>\n\n```\nok\n```\n\n</details>');
    expect(r.stdout).toContain(`- Resume: \`cd /home/u/proj && claude --resume ${sid(1)}\``);
    expect(r.stdout).not.toContain('secret musing');
    expect((await run(['export', '--thinking', REL], box)).stdout).toContain('secret musing');
  });

  it('--redact masks planted fake keys and says how many on stderr', async () => {
    box.write(`${sid(1)}.jsonl`, [
      user(1, null, `use ${FAKE.anthropic} and ${FAKE.openai}; aws ${FAKE.aws} aws_secret_access_key=${FAKE.awsSecret}`),
      assistant(2, 1, `token ${FAKE.github}, header Authorization: Bearer ${FAKE.bearer}`),
      user(3, 2, `db at postgres://admin:${FAKE.urlPassword}@db.example.com/app and the key:\n${FAKE.privateKey}`),
      assistant(4, 3, 'noted'),
    ]);
    const plain = await run(['export', REL], box);
    for (const secret of Object.values(FAKE)) expect(plain.stdout).toContain(secret.split('\n')[0]);
    const out = path.join(box.dir, 'out', 'shared.md');
    const r = await run(['export', '--redact', '-o', out, REL], box);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    const text = fs.readFileSync(out, 'utf8');
    for (const secret of Object.values(FAKE)) expect(text).not.toContain(secret.split('\n')[1] ?? secret);
    for (const secret of Object.values(FAKE)) expect(text).not.toContain(secret.split('\n')[0]);
    expect(text).toContain('[REDACTED:anthropic-key]');
    expect(text).toContain('postgres://admin:[REDACTED:url-password]@db.example.com/app');
    // The first prompt is the title too: its key is masked in the heading and in the message.
    expect(r.stderr).toBe(
      'cclint: masked 9 secrets (1 private-key, 2 anthropic-key, 1 api-key, 1 aws-access-key, 1 aws-secret-key, 1 github-token, 1 url-password, 1 bearer-token)\n',
    );
  });

  it('--format html is the report page of the session with its conversation, escaped', async () => {
    box.write(`${sid(1)}.jsonl`, [user(1, null, 'hello <img src=x onerror=alert(1)>'), assistant(2, 1, 'hi')]);
    const r = await run(['export', '--format', 'html', REL], box);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^<!DOCTYPE html>/);
    expect(r.stdout).toContain('hello &lt;img src=x onerror=alert(1)&gt;');
    expect(r.stdout).not.toContain('<img');
    expect(r.stdout).toContain('<h3>The conversation (2 messages)</h3>');
  });

  it('reads each message from the file only when it writes it: a big session is never held whole', () => {
    const file = box.write(`${sid(1)}.jsonl`, [user(1, null, 'one'), assistant(2, 1, 'two'), user(3, 2, 'three'), assistant(4, 3, 'four')]);
    const index = indexFile(classifyPath(file, box.dir));
    const read = vi.spyOn(index, 'recordObject');
    const conversation = conversationOf(index, resumeModel(index), 'A title');
    expect(conversation.messageCount).toBe(4);
    expect(read).not.toHaveBeenCalled();
    const pieces = conversationMarkdownPieces(conversation, { thinking: false });
    const written: string[] = [];
    for (let piece = pieces.next(); piece.done !== true; piece = pieces.next()) {
      written.push(piece.value);
      // The header, then one message a piece, each read as it is written.
      expect(read).toHaveBeenCalledTimes(written.length - 1);
    }
    expect(written.length).toBe(5);
    expect(written.slice(1).map((p) => /## (\d+)\./.exec(p)?.[1])).toEqual(['1', '2', '3', '4']);
    expect(written.join('')).toBe(conversationMarkdown(conversation, { thinking: false }));
  });

  it('refuses a .jsonl output and a missing session (exit 2)', async () => {
    box.write(`${sid(1)}.jsonl`, [user(1, null, 'x'), assistant(2, 1, 'y')]);
    expect((await run(['export', '-o', 'x.jsonl', REL], box)).code).toBe(2);
    expect((await run(['export', 'nope.jsonl'], box)).code).toBe(2);
  });
});

describe('cclint export of a tool call nested deeper than JSON.stringify goes', () => {
  /**
   * A session whose tool call's input and tool result's content are nested
   * `levels` deep, each with a fake secret at the bottom. Written as text:
   * JSON.stringify throws on them (RangeError, a few thousand levels down).
   */
  function writeDeep(levels: number): { input: string; result: string } {
    const input = `{"command":"ls","a":${'['.repeat(levels)}{"token":"${FAKE.anthropic}","marker":"deep-input-end"}${']'.repeat(levels)}}`;
    const result = `{"r":${'['.repeat(levels)}"${FAKE.github} deep-result-end"${']'.repeat(levels)}}`;
    const call = JSON.stringify(assistant(2, 1, 'running it', { tools: [['t1', 'Bash']] })).replace('"input":{}', `"input":${input}`);
    const answer = JSON.stringify(toolResult(3, 2, 't1')).replace('"content":"ok"', `"content":${result}`);
    const file = path.join(box.projects, PROJECT, `${sid(1)}.jsonl`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, `${[JSON.stringify(user(1, null, 'go')), call, answer, JSON.stringify(assistant(4, 3, 'done'))].join('\n')}\n`);
    return { input, result };
  }

  for (const levels of [5_000, 100_000]) {
    it(`writes md, html and redacted md of a tool input and result ${levels.toLocaleString('en-US')} levels deep, secrets masked`, async () => {
      const deep = writeDeep(levels);
      expect(() => JSON.stringify(JSON.parse(deep.input), null, 2)).toThrow(RangeError);

      const md = await run(['export', REL], box);
      expect(md.stderr).toBe('');
      expect(md.code).toBe(0);
      expect(md.stdout.split('\n').filter((l) => l.startsWith('## '))).toHaveLength(4);
      expect(md.stdout).toContain('<details><summary>Tool call: Bash</summary>\n\n```json\n');
      // The input's own JSON: indented where JSON.stringify can indent it, else compact, on one line.
      const shown = /```json\n([\s\S]*?)\n```/.exec(md.stdout)?.[1] ?? '';
      expect(jsonText(JSON.parse(shown))).toBe(deep.input);
      if (levels === 100_000) expect(shown).toBe(deep.input);
      expect(md.stdout).toContain(`<details><summary>Tool result</summary>\n\n\`\`\`\n${deep.result}\n\`\`\`\n\n</details>`);
      expect(md.stdout).toContain(FAKE.anthropic);

      const html = await run(['export', '--format', 'html', REL], box);
      expect(html.stderr).toBe('');
      expect(html.code).toBe(0);
      expect(html.stdout).toContain('<h3>The conversation (4 messages)</h3>');
      expect(html.stdout).toContain('<details><summary>Tool call: Bash</summary><pre>{');
      expect(html.stdout).toContain('deep-input-end');
      expect(html.stdout).toContain('deep-result-end');

      for (const format of ['md', 'html']) {
        const redacted = await run(['export', '--redact', '--format', format, REL], box);
        expect(redacted.code).toBe(0);
        expect(redacted.stderr).toBe('cclint: masked 2 secrets (1 anthropic-key, 1 github-token)\n');
        expect(redacted.stdout).not.toContain(FAKE.anthropic);
        expect(redacted.stdout).not.toContain(FAKE.github);
        expect(redacted.stdout).toContain('[REDACTED:anthropic-key]');
        expect(redacted.stdout).toContain('[REDACTED:github-token] deep-result-end');
        expect(redacted.stdout).toContain('deep-input-end');
      }
    });
  }
});

describe('redact', () => {
  it('masks nothing in ordinary text and each secret once', () => {
    expect(redact('the password is in the vault; see https://example.com/a:b@c').count).toBe(0);
    expect(redact(`${FAKE.anthropic} ${FAKE.anthropic}`)).toMatchObject({ text: '[REDACTED:anthropic-key] [REDACTED:anthropic-key]', count: 2 });
  });

  it('masks a quoted password whole, spaces and all, and a bare one up to its end', () => {
    expect(redact('{"password": "p@ss w0rd!", "user": "me"}')).toMatchObject({ text: '{"password": "[REDACTED:password]", "user": "me"}', count: 1 });
    expect(redact("secret='open sesame now'")).toMatchObject({ text: "secret='[REDACTED:password]'", count: 1 });
    expect(redact('password=hunter2hunter2 next')).toMatchObject({ text: 'password=[REDACTED:password] next', count: 1 });
  });
});
