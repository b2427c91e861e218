/**
 * Unit cases for the resume models. Each expectation was taken from the
 * real program run on the same records: the CLI's (`claude -p --resume`,
 * 2.1.330, through the cli-oracle tool) for `messages`, the Agent SDK
 * reader's (getSessionMessages) for `sdkMessages`. The differential tests in
 * test/oracle-cli and test/oracle check both models at scale.
 */
import { describe, expect, it } from 'vitest';
import { resumeModel } from '../../src/core/resume.js';
import { indexText } from '../support/corpus.js';
import { CLI_CASES } from '../support/cli-cases.js';

const u = (n: number) => `${String(n).repeat(8)}-${String(n).repeat(4)}-4${String(n).repeat(3)}-8${String(n).repeat(3)}-${String(n).repeat(12)}`;
const at = (s: number) => `2026-01-01T00:00:0${s}.000Z`;
const row = (o: Record<string, unknown>) => JSON.stringify({ isSidechain: false, sessionId: 's', ...o });

describe('SDK reader model: queued commands', () => {
  const text = [
    row({ parentUuid: null, type: 'user', message: { role: 'user', content: 'start' }, uuid: u(1), timestamp: at(0) }),
    row({ parentUuid: u(1), type: 'assistant', message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'working' }] }, uuid: u(2), timestamp: at(1) }),
    row({ parentUuid: u(2), type: 'attachment', attachment: { type: 'queued_command', prompt: 'also do this', source_uuid: u(9) }, uuid: u(3), timestamp: at(2) }),
    row({ parentUuid: u(3), type: 'assistant', message: { id: 'm2', role: 'assistant', content: [{ type: 'text', text: 'done both' }] }, uuid: u(4), timestamp: at(3) }),
    row({ parentUuid: u(4), type: 'attachment', attachment: { type: 'queued_command', prompt: 'meta note', isMeta: true }, uuid: u(5), timestamp: at(4) }),
    row({ parentUuid: u(4), type: 'attachment', attachment: { type: 'queued_command', prompt: 'typed at the end' }, uuid: u(6), timestamp: at(5) }),
  ].join('\n');

  it('turns a queued command a reply follows into a user message with its source uuid', () => {
    const messages = resumeModel(indexText(`${text}\n`)).sdkMessages;
    expect(messages.map((m) => [m.uuid, m.type])).toEqual([
      [u(1), 'user'],
      [u(2), 'assistant'],
      [u(9), 'user'],
      [u(4), 'assistant'],
      [u(6), 'user'],
    ]);
    expect(messages[2]?.excerpt).toBe('also do this');
  });
});

describe('CLI model', () => {
  for (const c of CLI_CASES) {
    it(c.name, () => {
      const model = resumeModel(indexText(c.text()));
      const got = model.messages.map((m) => m.uuid as string);
      if (c.ordered === false) expect(new Set(got)).toEqual(new Set(c.loaded));
      else expect(got).toEqual(c.loaded);
      c.also?.(model);
    });
  }
});

describe('building the model', () => {
  it("runs the caller's pause between its readings when it builds the model, and not when the model is built already", () => {
    const index = indexText([
      row({ parentUuid: null, type: 'user', message: { role: 'user', content: 'hi' }, uuid: u(1), timestamp: at(0) }),
      row({ parentUuid: u(9), type: 'assistant', message: { id: 'm1', role: 'assistant', content: [{ type: 'text', text: 'yes' }] }, uuid: u(2), timestamp: at(1) }),
    ].join('\n'));
    let pauses = 0;
    const model = resumeModel(index, () => pauses++);
    expect(pauses).toBe(3);
    expect(model.loaded).toBe(2); // the phantom parent is bridged to the row a second older
    expect(model.repairs).toHaveLength(1);
    expect(resumeModel(index, () => pauses++)).toBe(model);
    expect(pauses).toBe(3);
  });
});
