import { describe, expect, it } from 'vitest';
import { FORMATTERS, formatterNames } from '../../src/formatters/index.js';
import { github } from '../../src/formatters/github.js';
import { json } from '../../src/formatters/json.js';
import { sarif } from '../../src/formatters/sarif.js';
import { stylish } from '../../src/formatters/stylish.js';

describe('formatter registry', () => {
  it('names the four formatters, stylish first', () => {
    expect(formatterNames).toEqual(['stylish', 'json', 'sarif', 'github']);
    expect(Object.keys(FORMATTERS).sort()).toEqual([...formatterNames].sort());
  });

  it('maps each name to its formatter', () => {
    expect(FORMATTERS.stylish).toBe(stylish);
    expect(FORMATTERS.json).toBe(json);
    expect(FORMATTERS.sarif).toBe(sarif);
    expect(FORMATTERS.github).toBe(github);
  });
});
