/**
 * Detection accuracy on injected corruptions: every real main session of a
 * corpus gets one corruption of each kind, and the linter must report the
 * right rule on the right line for at least 95% of the cases of each kind
 * (the bar the held-out evaluation sets), with no error on the originals.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lintIndex, linkGroup } from '../../src/engine/linter.js';
import { RULES } from '../../src/rules/index.js';
import { type CorruptionKind, CORRUPTION_KINDS, inject } from '../support/corrupt.js';
import { type Corpus, BUNDLED_CORPUS, describeSharedCorpus, indexText, realMainSessions } from '../support/corpus.js';

function detectsInjectedCorruptions(corpus: Corpus, minimumCases: (kind: CorruptionKind) => number): void {
  const mains = realMainSessions(corpus);
  for (const kind of CORRUPTION_KINDS) {
    it(`finds ${kind} on the injected record`, () => {
      const misses: string[] = [];
      let cases = 0;
      for (const f of mains) {
        const original = fs.readFileSync(f.absolute, 'utf8');
        const injected = inject(original, kind, f.relative);
        if (injected === undefined) continue;
        cases++;
        const index = indexText(injected.text, { folder: injected.folder ?? '-home-u-proj' });
        linkGroup([index], undefined);
        const findings = lintIndex(index, { rules: RULES, severities: new Map() });
        const hit = findings.some((x) => x.ruleId === injected.ruleId && x.line === injected.line);
        if (!hit) {
          misses.push(`${f.relative}:${injected.line} ${findings.map((x) => `${x.ruleId}@${x.line}`).join(',')}`);
        }
      }
      expect(cases).toBeGreaterThanOrEqual(minimumCases(kind));
      const rate = (cases - misses.length) / cases;
      expect(rate, `${kind}: ${cases - misses.length}/${cases}\n${misses.join('\n')}`).toBeGreaterThanOrEqual(0.95);
    });
  }
}

// A typed prompt stored as one text block (where string-content is injected)
// is rare in real sessions: one bundled session has it, thirteen shared ones.
describe('injected corruptions (bundled corpus)', () =>
  detectsInjectedCorruptions(BUNDLED_CORPUS, (kind) => (kind === 'string-content' ? 1 : 5)));
describeSharedCorpus('injected corruptions', (corpus) => detectsInjectedCorruptions(corpus, () => 5));
