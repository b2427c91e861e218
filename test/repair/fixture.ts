/**
 * Hand-built {@link FilePlan}s for the writer tests: the planner is not
 * involved, only bytes, hashes and the shape of the contract.
 */
import { createHash } from 'node:crypto';
import { classifyPath } from '../../src/core/discovery.js';
import type { RecordEdit } from '../../src/core/types.js';
import { Rewrite } from '../../src/repair/rewrite.js';
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

/** A hand-built plan, with its bytes before and after for the tests to compare with. */
export interface TestPlan extends FilePlan {
  readonly before: Buffer;
  readonly after: Buffer;
}

/**
 * A plan from `before` to `after`: the bytes both share at the start and at
 * the end are kept ranges (which the writer reads from the file itself),
 * the rest new bytes, as the planner's rewrites are.
 */
export function makePlan(file: string, before: Buffer, after: Buffer, applied: readonly AppliedFix[] = []): TestPlan {
  let head = 0;
  while (head < before.length && head < after.length && before[head] === after[head]) head++;
  let tail = 0;
  while (tail < before.length - head && tail < after.length - head && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++;
  const rewrite = Rewrite.of([
    { kind: 'kept', start: 0, end: head },
    { kind: 'new', bytes: Buffer.from(after.subarray(head, after.length - tail)) },
    { kind: 'kept', start: before.length - tail, end: before.length },
  ]);
  return {
    file: classifyPath(file, '/'),
    before,
    after,
    sizeBefore: before.length,
    sha256Before: sha(before),
    rewrite,
    sha256After: sha(after),
    applied,
    skipped: [],
    remaining: [],
    remainingInfo: 0,
    resumeBefore: { loaded: 1, total: 3, fidelity: 1 / 3, sdk: 1 },
    resumeAfter: { loaded: 3, total: 3, fidelity: 1, sdk: 3 },
    scoreBefore: 0.8,
    scoreAfter: 0,
  };
}

/** The standard before/after pair: the relink fix applied to {@link transcriptLines}. */
export function relinkPlan(file: string): TestPlan {
  const lines = transcriptLines();
  const fix = relinkFix(lines);
  const edit = fix.edits[0];
  const fixed = [...lines];
  if (edit?.kind === 'replace') fixed[2] = edit.after[0] ?? '';
  return makePlan(file, Buffer.from(`${lines.join('\n')}\n`), Buffer.from(`${fixed.join('\n')}\n`), [fix]);
}
