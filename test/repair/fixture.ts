/**
 * Hand-built {@link FilePlan}s for the writer tests: the planner is not
 * involved, only bytes, hashes and the shape of the contract.
 */
import { createHash } from 'node:crypto';
import { classifyPath } from '../../src/core/discovery.js';
import type { RecordEdit } from '../../src/core/types.js';
import type { AppliedFix, FilePlan } from '../../src/repair/types.js';

export const SID = '0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f';
export const SECRET = 'sk-do-not-copy-me';

export function sha(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** Three records; the third's parent is a phantom. Line 2 holds a "secret". */
export function transcriptLines(): string[] {
  return [
    `{"parentUuid":null,"type":"user","uuid":"11111111-1111-4111-8111-111111111111","sessionId":"${SID}","message":{"role":"user","content":"hi"}}`,
    `{"parentUuid":"11111111-1111-4111-8111-111111111111","type":"assistant","uuid":"22222222-2222-4222-8222-222222222222","sessionId":"${SID}","message":{"role":"assistant","content":[{"type":"text","text":"${SECRET}"}]}}`,
    `{"parentUuid":"99999999-9999-4999-8999-999999999999","type":"user","uuid":"33333333-3333-4333-8333-333333333333","sessionId":"${SID}","message":{"role":"user","content":"more"}}`,
  ];
}

/** A relink of line 3 to line 2, as the planner would apply it. */
export function relinkFix(lines: readonly string[]): AppliedFix {
  const before = lines[2] ?? '';
  const edit: RecordEdit = {
    kind: 'replace',
    line: 3,
    before,
    after: [before.replace('99999999-9999-4999-8999-999999999999', '22222222-2222-4222-8222-222222222222')],
  };
  return { ruleId: 'phantom-parent', title: 'Relink parentUuid to assistant 22222222 on line 2', applicability: 'safe', edits: [edit], pass: 1 };
}

export function makePlan(file: string, before: Buffer, after: Buffer, applied: readonly AppliedFix[] = []): FilePlan {
  return {
    file: classifyPath(file, '/'),
    before,
    sha256Before: sha(before),
    after,
    sha256After: sha(after),
    applied,
    skipped: [],
    remaining: [],
    resumeBefore: { loaded: 1, total: 3, fidelity: 1 / 3, sdk: 1 },
    resumeAfter: { loaded: 3, total: 3, fidelity: 1, sdk: 3 },
    scoreBefore: 0.8,
    scoreAfter: 0,
  };
}

/** The standard before/after pair: the relink fix applied to {@link transcriptLines}. */
export function relinkPlan(file: string): FilePlan {
  const lines = transcriptLines();
  const fix = relinkFix(lines);
  const edit = fix.edits[0];
  const fixed = [...lines];
  if (edit?.kind === 'replace') fixed[2] = edit.after[0] ?? '';
  return makePlan(file, Buffer.from(`${lines.join('\n')}\n`), Buffer.from(`${fixed.join('\n')}\n`), [fix]);
}
