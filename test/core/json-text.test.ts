import { describe, expect, it } from 'vitest';
import { canonicalJsonText, jsonText, jsonTextOfAnyDepth } from '../../src/core/json-text.js';

const deep = (levels: number): unknown => JSON.parse(`${'{"a":['.repeat(levels)}1${']}'.repeat(levels)}`);

describe('jsonText', () => {
  it('writes what JSON.stringify writes for parsed values', () => {
    const samples = [
      null,
      true,
      -0.5,
      'a"b\\c\n\u001b\ud800😀',
      [],
      {},
      [1, [2, [3, {}]], { x: [] }],
      { b: 1, a: { '2': 'two', '1': ['one', null] }, 'k"ey': '\u2028' },
      JSON.parse('{"z":1,"10":2,"2":3,"a":{"":[{}]}}'),
    ];
    for (const v of samples) expect(jsonText(v)).toBe(JSON.stringify(v));
  });

  it('skips object members JSON cannot carry and writes null for them in arrays, as JSON.stringify', () => {
    const v = { a: undefined, b: 1, c: () => 1, d: [undefined, () => 1] };
    expect(jsonText(v)).toBe(JSON.stringify(v));
    expect(jsonText({ a: undefined })).toBe('{}');
  });

  it('handles a value nested 100,000 levels deep, where JSON.stringify throws', () => {
    const value = deep(100_000);
    expect(() => JSON.stringify(value)).toThrow(RangeError);
    expect(jsonText(value)).toBe(`${'{"a":['.repeat(100_000)}1${']}'.repeat(100_000)}`);
  });

  it('stops after `limit` characters and returns exactly that many', () => {
    expect(jsonText(deep(100_000), 40)).toBe('{"a":[{"a":[{"a":[{"a":[{"a":[{"a":[{"a"');
    expect(jsonText({ t: 'short' }, 40)).toBe('{"t":"short"}');
    expect(jsonText('x'.repeat(100), 5)).toBe('"xxxx');
  });
});

describe('jsonTextOfAnyDepth', () => {
  it('is JSON.stringify when it can be, and jsonText when the value is too deep', () => {
    expect(jsonTextOfAnyDepth({ a: [1] })).toBe('{"a":[1]}');
    const value = deep(50_000);
    expect(jsonTextOfAnyDepth(value)).toBe(jsonText(value));
  });

  it('indents as JSON.stringify does when it can, and writes a value too deep for it compact', () => {
    expect(jsonTextOfAnyDepth({ a: [1] }, 2)).toBe('{\n  "a": [\n    1\n  ]\n}');
    expect(jsonTextOfAnyDepth(undefined, 2)).toBe('null');
    const value = deep(100_000);
    expect(() => JSON.stringify(value, null, 2)).toThrow(RangeError);
    expect(jsonTextOfAnyDepth(value, 2)).toBe(jsonText(value));
  });
});

describe('canonicalJsonText', () => {
  it('writes one text for values that differ only in key order, at any depth, and keeps arrays in order', () => {
    const a = JSON.parse('{"b":{"y":[2,{"q":1,"p":0}],"x":1},"a":null}') as unknown;
    const b = JSON.parse('{"a":null,"b":{"x":1,"y":[2,{"p":0,"q":1}]}}') as unknown;
    expect(canonicalJsonText(a)).toBe('{"a":null,"b":{"x":1,"y":[2,{"p":0,"q":1}]}}');
    expect(canonicalJsonText(b)).toBe(canonicalJsonText(a));
    expect(canonicalJsonText([2, 1])).not.toBe(canonicalJsonText([1, 2]));
    const nested = (levels: number, order: 'ab' | 'ba'): unknown =>
      JSON.parse(`${(order === 'ab' ? '{"a":0,"b":' : '{"b":').repeat(levels)}1${(order === 'ab' ? '}' : ',"a":0}').repeat(levels)}`);
    expect(canonicalJsonText(nested(10_000, 'ab'))).toBe(canonicalJsonText(nested(10_000, 'ba')));
  });
});
