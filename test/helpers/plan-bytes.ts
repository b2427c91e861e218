/**
 * The planner on bytes in memory, with the plan's old and new bytes whole,
 * for tests that look at what a plan writes. The planner itself never
 * makes a copy of a file (src/repair/rewrite.ts).
 */
import { structuredPatch, type StructuredPatch } from 'diff';
import { classifyPath } from '../../src/core/discovery.js';
import { bufferSource } from '../../src/core/reader.js';
import { type SessionFile, SessionIndex } from '../../src/core/session-index.js';
import type { RecordEdit } from '../../src/core/types.js';
import type { LintOptions } from '../../src/engine/linter.js';
import { planFile, type PlanPolicy } from '../../src/repair/plan.js';
import { applyLineEdits, Rewrite } from '../../src/repair/rewrite.js';
import type { FilePlan } from '../../src/repair/types.js';

export interface BytesPlan extends FilePlan {
  /** The bytes planned from. */
  readonly before: Buffer;
  /** The bytes the plan writes. */
  readonly after: Buffer;
}

/** The whole new text of a rewrite of `original`. */
export function rewrittenBytes(rewrite: Rewrite, original: Buffer): Buffer {
  const out = Buffer.alloc(rewrite.size);
  rewrite.read(bufferSource(original), out, 0, rewrite.size, 0);
  return out;
}

/** {@link planFile} on `bytes`, with the bytes before and after. */
export async function planBytes(file: SessionFile, bytes: Buffer, lint: LintOptions, policy: PlanPolicy): Promise<BytesPlan> {
  const plan = await planFile(file, bytes, lint, policy);
  return { ...plan, before: bytes, after: rewrittenBytes(plan.rewrite, bytes) };
}

/**
 * Record edits applied to bytes in memory, as the planner applies them
 * (lines found through the text's index); undefined for a stale edit.
 */
export function applyToBytes(bytes: Buffer, edits: readonly RecordEdit[]): Buffer | undefined {
  const source = bufferSource(bytes);
  const index = SessionIndex.build(classifyPath('/p/-x/0b7a6f4e-2c1d-4e8f-9a0b-1c2d3e4f5a6b.jsonl', '/'), () => bufferSource(bytes));
  const rewrite = applyLineEdits(Rewrite.identity(bytes.length), source, index.lineTable(), edits);
  return rewrite === undefined ? undefined : rewrittenBytes(rewrite, bytes);
}

/** The unified diff of two whole texts, one line of context: what a per-region diff must agree with. */
export function wholePatch(label: string, before: Buffer, after: Buffer): StructuredPatch {
  return structuredPatch(`a/${label}`, `b/${label}`, before.toString(), after.toString(), undefined, undefined, { context: 1 });
}
