/**
 * The Latin-1 fast path of the index (`summarizeLatin1`): when it answers,
 * its summary must be the one the exact UTF-8 path gives, byte for byte of
 * every field; when it cannot be sure, it must decline.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type InternedField, type RecordSummary, COMMAND_TAGS, INTERRUPT_TEXTS, summarize } from '../../src/core/records.js';
import { summarizeLatin1 } from '../../src/core/session-index.js';
import type { JsonObject } from '../../src/core/types.js';
import { type Corpus, BUNDLED_CORPUS, corpusFiles, describeSharedCorpus, indexText } from '../support/corpus.js';

const keep = (s: string | undefined, _field: InternedField): string | undefined => s;

/** The exact path: UTF-8 decoding, JSON.parse, summarize. */
function exact(bytes: Buffer): RecordSummary | undefined {
  let value: unknown;
  try {
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  return summarize(value as JsonObject, 1, 0, undefined, keep);
}

function fast(bytes: Buffer): RecordSummary | 'utf8' | 'damaged' {
  return summarizeLatin1(bytes, 0, bytes.length, 1, 0, keep);
}

function lines(file: string): Buffer[] {
  const bytes = fs.readFileSync(file);
  const out: Buffer[] = [];
  let start = 0;
  while (start < bytes.length) {
    const nl = bytes.indexOf(0x0a, start);
    const end = nl === -1 ? bytes.length : nl;
    if (end > start) out.push(bytes.subarray(start, end));
    start = end + 1;
  }
  return out;
}

/** Compares the two paths on every line of a corpus; returns what the bars below are checked on. */
function agreesOnEveryLine(corpus: Corpus): { total: number; answered: number; nonAscii: number; nonAsciiAnswered: number } {
  let total = 0;
  let answered = 0;
  let nonAscii = 0;
  let nonAsciiAnswered = 0;
  for (const file of corpusFiles(corpus)) {
    for (const line of lines(file.absolute)) {
      total++;
      const got = fast(line);
      const want = exact(line);
      const where = `${file.relative}: ${line.toString('utf8', 0, 80)}`;
      const ascii = !line.some((b) => b > 0x7f);
      if (!ascii) nonAscii++;
      // Declining is always safe, but must say the right thing: damaged
      // lines are exactly the ones the UTF-8 path cannot read as an object.
      if (got === 'damaged') expect(want, where).toBeUndefined();
      else expect(want, where).toBeDefined();
      if (typeof got === 'string') continue;
      answered++;
      if (!ascii) nonAsciiAnswered++;
      expect(got, where).toEqual(want);
    }
  }
  return { total, answered, nonAscii, nonAsciiAnswered };
}

describeSharedCorpus('summarizeLatin1 over every line', (corpus) => {
  it('agrees with the UTF-8 path on every line it answers, and answers nearly all of them', () => {
    const { total, answered, nonAscii, nonAsciiAnswered } = agreesOnEveryLine(corpus);
    expect(nonAscii).toBeGreaterThan(500);
    expect(nonAsciiAnswered / nonAscii).toBeGreaterThan(0.9);
    expect(answered / total).toBeGreaterThan(0.99);
  });
});

describe('summarizeLatin1', () => {
  it('agrees with the UTF-8 path on every bundled corpus line it answers, and answers nearly all of them', () => {
    const { total, answered, nonAscii, nonAsciiAnswered } = agreesOnEveryLine(BUNDLED_CORPUS);
    // The path must be the common one, or it buys nothing: in real sessions,
    // only a few dozen non-ASCII lines carry non-ASCII into their summary.
    expect(nonAscii).toBeGreaterThan(150);
    expect(nonAsciiAnswered / nonAscii).toBeGreaterThan(0.9);
    // Lower than the shared corpus's 0.99: the small bundled copy holds more
    // deliberately damaged hand-written lines for its size.
    expect(answered / total).toBeGreaterThan(0.98);
  });

  const user = (content: unknown, extra: JsonObject = {}): Buffer =>
    Buffer.from(JSON.stringify({ type: 'user', uuid: 'u1', parentUuid: null, message: { role: 'user', content }, ...extra }));
  const assistant = (content: unknown): Buffer =>
    Buffer.from(JSON.stringify({ type: 'assistant', uuid: 'a1', parentUuid: 'u1', message: { id: 'm', content } }));

  it.each([
    ['an excerpt with an accent', user('café au lait')],
    ['an emoji in the first block', user([{ type: 'text', text: '🙂 fine' }])],
    ['a cwd outside ASCII', user('hi', { cwd: '/home/zoë/proj' })],
    ['a tool name outside ASCII', assistant([{ type: 'tool_use', id: 't1', name: 'mcp__wiki__søk', input: {} }])],
  ])('declines a line whose summary would carry non-ASCII text: %s', (_name, line) => {
    expect(fast(line)).toBe('utf8');
    expect(exact(line)).toBeDefined();
  });

  it('keeps a line whose non-ASCII text lies beyond everything the summary holds', () => {
    const line = user([
      { type: 'text', text: `${'a'.repeat(200)} — naïve` },
      { type: 'tool_result', tool_use_id: 't0', content: 'ünïcödé output' },
    ]);
    expect(fast(line)).toEqual(exact(line));
    expect((fast(line) as RecordSummary).excerpt).toBe('a'.repeat(120));
  });

  it('leaves the blank test of assistant string content to the exact path', () => {
    // 130 ASCII spaces then an em space (U+2003): blank in UTF-8, and in
    // Latin-1 three non-blank characters, all past the 120-character excerpt.
    const blank = assistant(`${' '.repeat(130)}\u2003`);
    expect(fast(blank)).toBe('utf8');
    expect(exact(blank)?.bodyMalformed).toBe(true);
    expect(indexText(Buffer.concat([blank, Buffer.from('\n')])).records[0]?.bodyMalformed).toBe(true);
  });

  it('reads escaped non-ASCII characters as JSON.parse does: an all-ASCII line needs no second look', () => {
    const escaped = Buffer.from('{"type":"user","uuid":"u1","parentUuid":null,"message":{"content":"caf\\u00e9 \\ud83d\\ude42"}}');
    expect(fast(escaped)).toEqual(exact(escaped));
    expect((fast(escaped) as RecordSummary).excerpt).toBe('café 🙂');
  });

  it('agrees on invalid UTF-8 inside a string', () => {
    // A lone continuation byte, and a lone 0xA0 (a no-break space in Latin-1,
    // U+FFFD in UTF-8): inside the excerpt the line goes the UTF-8 way, past
    // it the Latin-1 summary is the UTF-8 one.
    for (const bad of [Buffer.from([0x80]), Buffer.from([0xa0])]) {
      for (const at of [10, 300]) {
        const text = Buffer.concat([Buffer.from(`{"type":"user","uuid":"u1","message":{"content":"${'x'.repeat(at)}`), bad, Buffer.from('!"}}')]);
        if (at < 120) expect(fast(text)).toBe('utf8');
        else expect(fast(text)).toEqual(exact(text));
        expect(indexText(Buffer.concat([text, Buffer.from('\n')])).records[0]).toEqual(exact(text));
      }
    }
  });

  it('declines what JSON.parse rejects, so damaged lines keep their diagnosis', () => {
    for (const broken of ['{"type":"user","uuid":"u1"', '{"a":1}{"b":2}', '[1,2]', '\u0000\u0000{"a":1}', 'café']) {
      expect(fast(Buffer.from(broken))).toBe('damaged');
      expect(exact(Buffer.from(broken))).toBeUndefined();
    }
  });

  it('relies on ASCII-only markers: every text summarize compares against is ASCII', () => {
    // summarizeLatin1 keeps a summary when what it returns is ASCII; that is
    // only the same answer as UTF-8 while these constants are ASCII.
    for (const text of [...INTERRUPT_TEXTS, ...COMMAND_TAGS.map(([tag]) => tag), 'No response requested.']) {
      expect(text).toMatch(/^[\u0000-\u007f]*$/);
    }
  });
});
