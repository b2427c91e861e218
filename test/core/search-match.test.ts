/**
 * A plain search matches once the text and the needle are both lower-cased,
 * but must give the match's place in the text itself: `toLowerCase` does not
 * keep every character's length (U+0130 `İ` becomes `i` and U+0307, two
 * code units), so a place in the lower-cased text is not one in the text.
 */
import { describe, expect, it } from 'vitest';
import { plainMatcher, regexMatcher } from '../../src/core/views/search.js';

/**
 * The reference: the places in `text` of the span `at`..`end` of its lower
 * case, widened to whole characters, worked out from the lower case of
 * every prefix (no assumption about single characters).
 */
function reference(text: string, needle: string): { start: number; end: number } | undefined {
  const lower = needle.toLowerCase();
  const at = text.toLowerCase().indexOf(lower);
  if (at < 0 || lower === '') return undefined;
  const end = at + lower.length;
  const bounds: number[] = [];
  for (let k = 0; k <= text.length; k++) {
    const c = text.charCodeAt(k);
    const prev = text.charCodeAt(k - 1);
    if (k > 0 && k < text.length && c >= 0xdc00 && c <= 0xdfff && prev >= 0xd800 && prev <= 0xdbff) continue; // inside a pair
    bounds.push(k);
  }
  const folded = (k: number): number => text.slice(0, k).toLowerCase().length;
  const start = bounds.filter((k) => folded(k) <= at).at(-1) as number;
  const stop = bounds.find((k) => folded(k) >= end) as number;
  return { start, end: stop };
}

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('plainMatcher places', () => {
  it('give the match after ten İ in the text itself', () => {
    const text = 'İİİİİİİİİİ needle tail text here';
    const found = plainMatcher('needle').find(text);
    expect(found).toEqual({ start: 11, end: 17 });
    expect(text.slice(found?.start, found?.end)).toBe('needle');
  });

  it('give the match after characters that grow, or keep their length, when lower-cased', () => {
    // İ grows; Σ becomes σ or ς by context; 𐐀 (two units) becomes 𐐨 (two units); ẞ, K (Kelvin) and É keep one unit.
    for (const lead of ['İ', 'İİİ', 'ΣΑΣ İ', '𐐀İ𐐀', 'ẞ\u212AÉ İ 🎉', 'İ\ud800 lone half', 'é'.repeat(50)]) {
      const text = `${lead} the Needle, then İ more`;
      const found = plainMatcher('NEEDLE').find(text);
      expect(found).toEqual({ start: text.indexOf('Needle'), end: text.indexOf('Needle') + 6 });
    }
  });

  it('slice out the whole original characters of a match that holds İ', () => {
    const text = 'to İSTANBUL and i\u0307stanbul';
    expect(plainMatcher('İstanbul').find(text)).toEqual({ start: 3, end: 11 });
    expect(plainMatcher('i\u0307stanbul').find(text)).toEqual({ start: 3, end: 11 });
    expect(plainMatcher('İstanbul').find('i\u0307stanbul')).toEqual({ start: 0, end: 9 });
    // Part of what İ lower-cases to: the whole İ.
    expect(plainMatcher('i').find('xİy')).toEqual({ start: 1, end: 2 });
    expect(plainMatcher('\u0307s').find('xİstanbul')).toEqual({ start: 1, end: 3 });
    // Not a dotless match: "istanbul" is not in "i̇stanbul".
    expect(plainMatcher('istanbul').find('İstanbul')).toBeUndefined();
    expect(plainMatcher('stanbul').find('İİ İstanbul')).toEqual({ start: 4, end: 11 });
  });

  it('are unchanged for ASCII, and for text whose characters all keep their length', () => {
    expect(plainMatcher('quick').find('The QUICK brown fox')).toEqual({ start: 4, end: 9 });
    expect(plainMatcher('café').find('ÉCOLE, CAFÉ noir')).toEqual({ start: 7, end: 11 });
    expect(plainMatcher('fox').find('🎉 the fox')).toEqual({ start: 7, end: 10 });
    expect(plainMatcher('nowhere').find('İ nothing')).toBeUndefined();
    expect(plainMatcher('').find('anything')).toBeUndefined();
  });

  it('agree with a reference worked out from whole prefixes, on random text', () => {
    const pool = ['İ', 'i', 'I', '\u0307', 'a', 'B', 'Σ', 'σ', 'ς', '𐐀', '𐐨', '🎉', 'ẞ', 'ß', '\u212A', 'k', ' ', 'É', '\ud800', '\udc00'];
    const next = random(20260105);
    const pick = (): string => pool[Math.floor(next() * pool.length)] as string;
    for (let n = 0; n < 3000; n++) {
      const text = Array.from({ length: 1 + Math.floor(next() * 14) }, pick).join('');
      // A needle from the text's own lower case (it matches), or from the pool (it may not).
      const lower = text.toLowerCase();
      const from = Math.floor(next() * lower.length);
      const needle = next() < 0.7 ? lower.slice(from, from + 1 + Math.floor(next() * 4)) : pick() + pick();
      const found = plainMatcher(needle).find(text);
      expect({ text, needle, found }).toEqual({ text, needle, found: reference(text, needle) });
    }
  });

  it('of a regular expression are those of the text itself', () => {
    expect(regexMatcher('ne+dle').find('İİİİİİİİİİ needle tail')).toEqual({ start: 11, end: 17 });
  });

  it('--regex: takes the first match that holds something, past the empty ones a pattern like l* finds first', () => {
    expect(regexMatcher('l*').find('hello')).toEqual({ start: 2, end: 4 });
    expect(regexMatcher('\\d*').find('take 123 steps')).toEqual({ start: 5, end: 8 });
    // Past a character outside the BMP whole, never between its halves.
    expect(regexMatcher('x*').find('😀😀 xx')).toEqual({ start: 5, end: 7 });
    // Only empty matches: nothing to show.
    expect(regexMatcher('^').find('hello')).toBeUndefined();
    expect(regexMatcher('z*').find('hello')).toBeUndefined();
  });
});
