/**
 * Applies every fix (safe and unsafe) to a case through the real planner,
 * then plans again on the result: the second plan must change nothing
 * (a fix is applied twice without effect), and the result is linted again
 * for the caller to check.
 */
import { expect } from 'vitest';
import { resumeModel } from '../../src/core/resume.js';
import type { Finding, JsonObject } from '../../src/core/types.js';
import { type BytesPlan, planBytes } from './plan-bytes.js';
import { RULES } from '../../src/rules/index.js';
import { indexOf, lintCase, sessionFileOf } from './rule-tester.js';
import { jsonl } from './records.js';

const lint = { rules: RULES, severities: new Map() };
const policy = { allow: new Set(['safe', 'unsafe'] as const) };

export interface FixedCase {
  readonly plan: BytesPlan;
  /** Every finding of every rule on the fixed file. */
  readonly findings: readonly Finding[];
  /** The fixed file's request passes the API rules cclint models. */
  readonly apiValid: boolean;
  /** Messages resume loads from the file before and after. */
  readonly loaded: readonly [number, number];
}

export async function fixTwice(records: readonly JsonObject[]): Promise<FixedCase> {
  const file = sessionFileOf({ records });
  const bytes = Buffer.from(jsonl(records));
  const plan = await planBytes(file, bytes, lint, { allow: new Set(policy.allow) });
  const again = await planBytes(file, plan.after, lint, { allow: new Set(policy.allow) });
  expect(again.applied, 'a second fix changes nothing').toEqual([]);
  expect(again.after.equals(plan.after)).toBe(true);
  const { findings } = lintCase(RULES, { text: plan.after });
  const before = resumeModel(indexOf({ records })).loaded;
  const after = resumeModel(indexOf({ text: plan.after }));
  return { plan, findings, apiValid: after.request().valid, loaded: [before, after.loaded] };
}

/** A PNG's first bytes (signature and IHDR) in base64: enough for its size to be read. */
export function pngBase64(width: number, height: number): string {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write('IHDR', 12, 'latin1');
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  b[24] = 8;
  b[25] = 6;
  return b.toString('base64');
}

export function imageBlock(width: number, height: number): JsonObject {
  return { type: 'image', source: { type: 'base64', media_type: 'image/png', data: pngBase64(width, height) } };
}

/** A thinking block; `signature: ''`, or `null` for none at all, makes an unsigned one. */
export function thinkingBlock(text: string, signature: string | null = `EqSIG0123456789abcdefghij${Buffer.from(text).toString('base64')}`): JsonObject {
  return signature === null ? { type: 'thinking', thinking: text } : { type: 'thinking', thinking: text, signature };
}
