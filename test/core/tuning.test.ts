import { describe, expect, it } from 'vitest';
import { tuneV8 } from '../../src/tuning.js';

const versions = (v8: string): NodeJS.ProcessVersions => ({ ...process.versions, v8 });

describe('tuneV8', () => {
  it('tunes the V8 of Node 20, where the budget was measured', () => {
    expect(tuneV8(versions('11.3.244.8-node.33'))).toBe(true);
  });

  it('leaves any other V8 alone, which may not know the flag', () => {
    expect(tuneV8(versions('12.4.254.21-node.33'))).toBe(false);
    expect(tuneV8(versions('10.2.154.26-node.36'))).toBe(false);
  });
});
