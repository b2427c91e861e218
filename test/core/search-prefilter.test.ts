/**
 * Search reads raw bytes before it parses anything: a file or line the
 * matcher's prefilter rejects is never parsed. That is sound only if every
 * line holding a matching record passes, however its writer escaped it
 * (Claude Code's JSON.stringify, an ensure-ASCII writer's `\uXXXX` for
 * everything above ASCII, `\/`, escaped ASCII letters), and in whatever
 * case (including the two non-ASCII characters whose lower case is ASCII).
 * The records a line observer is handed during the index build must also
 * say exactly what a plain UTF-8 parse says, Latin-1 fast path or not.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { classifyPath } from '../../src/core/discovery.js';
import { bufferSource } from '../../src/core/reader.js';
import { SessionIndex } from '../../src/core/session-index.js';
import { spokenText } from '../../src/core/views/conversation.js';
import { findInFile, hitObserver, mayMatch, plainMatcher, regexMatcher } from '../../src/core/views/search.js';
import type { JsonObject } from '../../src/core/types.js';
import { BUNDLED_CORPUS, corpusFiles } from '../support/corpus.js';

/** Escapes every character above U+007F as `\uXXXX` (as Python's json.dumps does by default). */
function ensureAscii(json: string, upper: boolean): string {
  return json.replace(/[\u0080-\uffff]/g, (c) => {
    const hex = c.charCodeAt(0).toString(16).padStart(4, '0');
    return `\\u${upper ? hex.toUpperCase() : hex}`;
  });
}

/** Escapes the ASCII letters inside strings as `\u00XX`, and `/` as `\/`: legal JSON no common writer produces. */
function escapeAsciiLetters(json: string): string {
  return json.replace(/"((?:[^"\\]|\\.)*)"/g, (_m, body: string) => `"${body.replace(/(\\u[0-9a-fA-F]{4}|\\.)|([a-zA-Z])|(\/)/g, (all, esc, letter, slash) => (esc !== undefined ? all : letter !== undefined ? `\\u00${letter.charCodeAt(0).toString(16)}` : slash !== undefined ? '\\/' : all))}"`);
}

function line(text: string): JsonObject {
  return {
    parentUuid: null,
    type: 'user',
    message: { role: 'user', content: [{ type: 'text', text }] },
    uuid: '00000001-0000-4000-8000-000000000000',
    timestamp: '2026-01-05T03:00:00.000Z',
    sessionId: '5e550000-0000-4000-8000-000000000001',
  };
}

const TEXTS = [
  'he said "Straße"\nthen left',
  'path C:\\Users\\me and src/core/reader.ts',
  'the \u212Aelvin sign and \u0130stanbul',
  'ÉCOLE noted; naïve café',
  'emoji 🎉 party, lone \ud800 surrogate',
  'tab\there, bell \u0007, escape \u001b[2J',
  'plain words only, the quick brown fox',
  'x'.repeat(70_000) + ' needle at the end of a long line',
  // Past the index summary's excerpt, so that the Latin-1 fast path keeps the line: raw non-ASCII beside escapes of it.
  `${'padding '.repeat(20)}café, lone \ud800 surrogate, naïve Straße`,
];

/** Escapes only `é` (a writer may escape some characters and not others). */
const escapeSome = (json: string): string => json.replace(/é/g, '\\u00e9');

const NEEDLES = [
  'straße', 'STRASSE', 'said "straße"', '"', '\\users\\me', 'src/core', 'kelvin', 'istanbul', 'i̇stanbul', 'k', 'école', 'NAÏVE café',
  '🎉', 'tab\there', '\u001b[2j', 'quick brown', 'fox', 'needle at the end', 'nowhere', 'é',
];

describe('the plain matcher prefilter', () => {
  it('passes every line whose record says the needle, whatever escapes its writer chose', () => {
    for (const text of TEXTS) {
      const json = JSON.stringify(line(text));
      const encodings = [json, ensureAscii(json, false), ensureAscii(json, true), escapeAsciiLetters(json), escapeAsciiLetters(ensureAscii(json, false)), escapeSome(json)];
      for (const needle of NEEDLES) {
        const matcher = plainMatcher(needle);
        for (const encoded of encodings) {
          const bytes = Buffer.from(encoded, 'utf8');
          const said = spokenText(JSON.parse(encoded) as JsonObject);
          if (matcher.find(said) === undefined) continue;
          const where = { text: text.slice(0, 40), needle, encoded: encoded.slice(0, 120) };
          if (matcher.prefilter !== undefined) expect({ ...where, line: matcher.prefilter.test(bytes.toString('latin1')) }).toEqual({ ...where, line: true });
          expect({ ...where, file: mayMatch(bufferSource(bytes), matcher) }).toEqual({ ...where, file: true });
        }
      }
    }
  });

  it('rejects lines that do not say it, in Claude Code’s own encoding', () => {
    const json = JSON.stringify(line('plain words only, the quick brown fox'));
    expect(plainMatcher('zebra').prefilter?.test(json)).toBe(false);
    expect(mayMatch(bufferSource(Buffer.from(json)), plainMatcher('zebra'))).toBe(false);
    // Non-ASCII needles are looked for through their longest ASCII run.
    expect(plainMatcher('naïve').prefilter?.source.startsWith('na|')).toBe(true);
    // Nothing to look for in bytes: every line is parsed.
    expect(plainMatcher('🎉').prefilter).toBeUndefined();
    expect(regexMatcher('fo+x').prefilter).toBeUndefined();
  });

  it('finds a needle across the border of two read pieces', () => {
    for (const at of [65_530, 65_536, 65_540, 8 * 1024 * 1024 - 4]) {
      const bytes = Buffer.alloc(at + 20, 'a');
      bytes.write('NeedLe', at - 3, 'latin1');
      expect({ at, found: mayMatch(bufferSource(bytes), plainMatcher('needle')) }).toEqual({ at, found: true });
    }
    const kelvin = Buffer.concat([Buffer.alloc(65_535, 'a'), Buffer.from('\u212Aey', 'utf8')]);
    expect(mayMatch(bufferSource(kelvin), plainMatcher('key'))).toBe(true);
  });
});

describe('the index line observer', () => {
  function observed(bytes: Buffer, needle: string): Map<string, string> {
    const file = classifyPath(path.join(path.sep, 'projects', '-home-u-proj', '0b7a6f4e-2c1d-4e8f-9a0b-1c2d3e4f5a6b.jsonl'), path.sep);
    const { observer, found } = hitObserver(plainMatcher(needle));
    SessionIndex.build(file, () => bufferSource(bytes), observer);
    // Keys as `line:nth` (the first record of a line is keyed by its line alone).
    return new Map([...found].map(([k, v]) => [typeof k === 'number' ? `${k}:0` : k, `${v.before}[${v.match}]${v.after}`]));
  }

  /** The lines that are one JSON object whose said text matches, found by a UTF-8 parse of every line. */
  function naive(bytes: Buffer, needle: string): { keys: string[]; parsed: Set<string> } {
    const matcher = plainMatcher(needle);
    const keys: string[] = [];
    const parsed = new Set<string>();
    bytes
      .toString('utf8')
      .split('\n')
      .forEach((text, i) => {
        let value: unknown;
        try {
          value = JSON.parse(text);
        } catch {
          return;
        }
        if (value === null || typeof value !== 'object' || Array.isArray(value)) return;
        parsed.add(`${i + 1}:0`);
        const said = spokenText(value as JsonObject);
        if (said !== '' && matcher.find(said) !== undefined) keys.push(`${i + 1}:0`);
      });
    return { keys, parsed };
  }

  it('hands over records that say what a UTF-8 parse says, on every encoding', () => {
    const rows = TEXTS.flatMap((text) => {
      const json = JSON.stringify(line(text));
      return [json, ensureAscii(json, false), escapeAsciiLetters(json), escapeSome(json)];
    });
    const bytes = Buffer.from(`${rows.join('\n')}\n`);
    for (const needle of NEEDLES) {
      const got = observed(bytes, needle);
      // The same records match, with the excerpts of the exact text.
      expect({ needle, keys: [...got.keys()] }).toEqual({ needle, keys: naive(bytes, needle).keys });
      rows.forEach((row, i) => {
        const key = `${i + 1}:0`;
        if (!got.has(key)) return;
        const said = spokenText(JSON.parse(row) as JsonObject);
        const m = plainMatcher(needle).find(said);
        expect(m).toBeDefined();
        expect(got.get(key)).toContain(`[${said.slice(m?.start, m?.end).replace(/\n/g, '⏎').replace(/[\t ]+/g, ' ')}]`);
      });
    }
  });

  it('finds from stored facts (reading only the lines asked for) what the index build finds', () => {
    const rows = TEXTS.flatMap((text) => {
      const json = JSON.stringify(line(text));
      return [json, ensureAscii(json, false), escapeAsciiLetters(json), escapeSome(json), '{"torn": "li'];
    });
    const bytes = Buffer.from(`${rows.join('\n')}\n`);
    const records = rows.map((_row, i) => ({ line: i + 1, nth: 0, uuid: undefined, type: 'user', time: 0, place: 'resumed' as const }));
    for (const needle of NEEDLES) {
      const stored = findInFile(bufferSource(bytes), records, plainMatcher(needle));
      const shown = new Map([...stored].map(([k, v]) => [typeof k === 'number' ? `${k}:0` : k, `${v.before}[${v.match}]${v.after}`]));
      expect({ needle, found: shown }).toEqual({ needle, found: observed(bytes, needle) });
    }
  });

  it('finds on the bundled corpus what a UTF-8 parse of every line finds', () => {
    let compared = 0;
    for (const { absolute: file } of corpusFiles(BUNDLED_CORPUS)) {
      if (!file.endsWith('.jsonl') || !fs.existsSync(file)) continue;
      const bytes = fs.readFileSync(file);
      for (const needle of ['the', 'é', 'error', '"', '→']) {
        const expected = naive(bytes, needle);
        // Lines a UTF-8 parse cannot read whole (torn, glued, NUL-padded) are the index's to recover.
        const got = [...observed(bytes, needle).keys()].filter((k) => expected.parsed.has(k));
        expect({ file, needle, got }).toEqual({ file, needle, got: expected.keys });
        compared += got.length;
      }
    }
    expect(compared).toBeGreaterThan(200);
  });
});
