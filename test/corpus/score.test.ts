/**
 * Calibration of the corruption score (README "Score"): on the real main
 * sessions of a corpus and broken variants of every kind
 * (test/support/breaks.ts), the score must separate sessions whose resume
 * really loses messages (the CLI model loads fewer than the intended
 * conversation has; the model is checked against the real CLI by
 * test/oracle-cli) from healthy ones with a ROC AUC of at least 0.95, and a
 * healthy real session must score 0.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { linkGroup } from '../../src/engine/linter.js';
import { resumeModel } from '../../src/core/resume.js';
import { scoreSession } from '../../src/core/score.js';
import { BREAK_KINDS, injectBreak } from '../support/breaks.js';
import { type Corpus, BUNDLED_CORPUS, describeSharedCorpus, indexText, realMainSessions } from '../support/corpus.js';

/** Probability that a random broken session outranks a random healthy one. */
export function rocAuc(broken: readonly number[], healthy: readonly number[]): number {
  let wins = 0;
  for (const b of broken) for (const h of healthy) wins += b > h ? 1 : b === h ? 0.5 : 0;
  return wins / (broken.length * healthy.length);
}

function scoreOf(text: string) {
  const index = indexText(text);
  linkGroup([index], undefined);
  const resume = resumeModel(index);
  return { resume, score: scoreSession(index, resume).score };
}

function calibratesTheScore(corpus: Corpus): void {
  const mains = realMainSessions(corpus);
  const broken: number[] = [];
  const healthy: number[] = [];
  const healthyReal: number[] = [];
  for (const f of mains) {
    const original = fs.readFileSync(f.absolute, 'utf8');
    const real = scoreOf(original);
    if (real.resume.total > 0) {
      healthyReal.push(real.score);
      healthy.push(real.score);
    }
    for (const kind of BREAK_KINDS) {
      const variant = injectBreak(original, kind, f.relative);
      if (variant === undefined) continue;
      const { resume, score } = scoreOf(variant.text);
      if (kind === 'healthy-rewind' || kind === 'healthy-rewind-late') healthy.push(score);
      else if (resume.loaded < resume.total) broken.push(score);
    }
  }

  it('scores healthy real sessions 0', () => {
    // Every main session but the empty ones (no message, nothing to score).
    expect(healthyReal.length).toBeGreaterThan(mains.length * 0.8);
    expect(healthy.filter((s) => s !== 0)).toEqual([]);
  });

  it('separates resumes that lose messages from healthy ones (ROC AUC >= 0.95)', () => {
    expect(broken.length).toBeGreaterThan(mains.length);
    expect(rocAuc(broken, healthy)).toBeGreaterThanOrEqual(0.95);
  });
}

describe('corruption score (bundled corpus)', () => calibratesTheScore(BUNDLED_CORPUS));
describeSharedCorpus('corruption score', calibratesTheScore);
