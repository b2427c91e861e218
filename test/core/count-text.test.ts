import { describe, expect, it } from 'vitest';
import { countText } from '../../src/core/count-text.js';

describe('countText', () => {
  it('writes what toLocaleString("en-US") writes', () => {
    const samples = [0, -0, 1, 7, 12, 999, 1000, 1001, 12_345, 999_999, 1_000_000, 123_456_789, -1, -999, -1000, -1_234_567];
    samples.push(Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2, 1.5, 1234.5678, -0.25, 1e21, NaN, Infinity, -Infinity);
    for (let k = 0; k < 2000; k++) samples.push(Math.floor((Math.random() - 0.3) * 10 ** (k % 16)));
    for (const n of samples) expect(countText(n), String(n)).toBe(n.toLocaleString('en-US'));
  });

  it('groups by threes from the right', () => {
    expect(countText(1234567)).toBe('1,234,567');
    expect(countText(-12345)).toBe('-12,345');
    expect(countText(100)).toBe('100');
  });
});
