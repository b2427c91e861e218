import { describe, expect, it } from 'vitest';
import { type FileFacts, titleOf } from '../../src/core/views/sessions.js';

const facts = (over: Partial<FileFacts>): FileFacts => ({
  role: 'main',
  sessionId: 's',
  lastTime: Number.NaN,
  firstTime: Number.NaN,
  customTitle: undefined,
  aiTitle: undefined,
  summary: undefined,
  lastPrompt: undefined,
  firstPrompt: undefined,
  slug: undefined,
  notTranscript: undefined,
  foreignSessions: new Map(),
  continuedIn: [],
  ...over,
});

describe('session table model: title precedence (format.md §9)', () => {
  it('custom title, then AI title, summary, last prompt, first prompt, else (session)', () => {
    expect(titleOf(facts({ customTitle: 'mine', aiTitle: 'ai', summary: 'sum', firstPrompt: 'p' }))).toBe('mine');
    expect(titleOf(facts({ aiTitle: 'ai', summary: 'sum', firstPrompt: 'p' }))).toBe('ai');
    expect(titleOf(facts({ summary: 'sum', lastPrompt: 'last', firstPrompt: 'p' }))).toBe('sum');
    expect(titleOf(facts({ lastPrompt: 'last', firstPrompt: 'p' }))).toBe('last');
    expect(titleOf(facts({ firstPrompt: 'two\nlines' }))).toBe('two lines');
    expect(titleOf(facts({}))).toBe('(session)');
  });
});
