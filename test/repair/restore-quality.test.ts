/**
 * Repair quality on injected breaks (issue #3's bar), on the real main
 * sessions of a corpus: after planning with
 * safe and unsafe fixes, resume must load the original conversation again,
 * nothing may get worse, and lines the fixes had no reason to touch stay
 * byte-identical. Healthy sessions must come out unchanged.
 */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { classifyPath } from '../../src/core/discovery.js';
import { resumeModel } from '../../src/core/resume.js';
import { RULES } from '../../src/rules/index.js';
import { planBytes } from '../helpers/plan-bytes.js';
import { type CorruptionKind, inject, REPAIRABLE_KINDS } from '../support/corrupt.js';
import { type Corpus, BUNDLED_CORPUS, describeSharedCorpus, indexText, realMainSessions } from '../support/corpus.js';

// The torn tail too: everything but the torn record itself must come back.
const REPAIRABLE: readonly CorruptionKind[] = [...REPAIRABLE_KINDS, 'invalid-json-torn'];

const lint = { rules: RULES, severities: new Map() };
const file = classifyPath('/projects/-home-u-proj/0b7a6f4e-2c1d-4e8f-9a0b-1c2d3e4f5a6b.jsonl', '/');
const messages = (bytes: Buffer | string): string[] => resumeModel(indexText(bytes)).messages.map((m) => m.uuid as string);

function restoresWhatWasBroken(corpus: Corpus): void {
  const mains = realMainSessions(corpus);
  for (const kind of REPAIRABLE) {
    it(`restores the conversation after ${kind}`, async () => {
      let cases = 0;
      let restored = 0;
      let loadedSum = 0;
      const worse: string[] = [];
      const notRestored: string[] = [];
      for (const f of mains) {
        const original = fs.readFileSync(f.absolute, 'utf8');
        const injected = inject(original, kind, f.relative);
        if (injected === undefined) continue;
        // A torn record's content is lost for good: the best repair restores
        // everything but that record.
        const intended =
          kind === 'invalid-json-torn'
            ? messages(original.split('\n').filter((l) => l !== '').slice(0, -1).join('\n') + '\n')
            : messages(original);
        if (intended.length === 0) continue;
        cases++;
        const broken = Buffer.from(injected.text);
        const plan = await planBytes(file, broken, lint, { allow: new Set(['safe', 'unsafe']) });
        const again = await planBytes(file, plan.after, lint, { allow: new Set(['safe', 'unsafe']) });
        if (!again.after.equals(plan.after)) worse.push(`${f.relative}: a second fix changed the file again`);
        const before = messages(broken);
        const after = messages(plan.after);
        const intendedSet = new Set(intended);
        loadedSum += after.filter((u) => intendedSet.has(u)).length / intended.length;
        // Worse: an intended message resume loaded before the fix and does not after. (A fix
        // may drop what a wrong stand-in brought in, such as history from before a compaction.)
        const afterSet = new Set(after);
        const lost = before.filter((u) => intendedSet.has(u) && !afterSet.has(u));
        if (lost.length > 0) worse.push(`${f.relative}: ${lost.length} intended message(s) no longer loaded`);
        if (JSON.stringify(after) === JSON.stringify(intended)) restored++;
        else notRestored.push(`${f.relative}: intended ${intended.length}, after ${after.length}, before ${before.length}`);
      }
      expect(cases).toBeGreaterThanOrEqual(5);
      // Nothing worse, and fixing the fixed file is a no-op (idempotence).
      expect(worse).toEqual([]);
      expect(loadedSum / cases, notRestored.join('\n')).toBeGreaterThanOrEqual(0.99);
      expect(restored / cases, notRestored.join('\n')).toBeGreaterThanOrEqual(0.95);
    });
  }

  it('leaves healthy real sessions byte-identical with safe and unsafe fixes', async () => {
    const changed: string[] = [];
    for (const f of mains) {
      const bytes = fs.readFileSync(f.absolute);
      const plan = await planBytes(file, bytes, lint, { allow: new Set(['safe', 'unsafe']) });
      if (!plan.after.equals(bytes)) changed.push(`${f.relative}: ${plan.applied.map((a) => a.ruleId).join(', ')}`);
    }
    expect(changed).toEqual([]);
  });
}

describe('repair quality on injected breaks (bundled corpus)', () => restoresWhatWasBroken(BUNDLED_CORPUS));
describeSharedCorpus('repair quality on injected breaks', restoresWhatWasBroken);
