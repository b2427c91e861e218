/**
 * The fix planner. It only plans: given a file's bytes it returns the bytes
 * a repair would write, and which fixes made them. Nothing here touches the
 * file system.
 *
 * Each pass lints the current text, takes the fixes the policy allows in
 * line order, applies those whose lines no earlier fix of the pass touched
 * (the rest wait for the next pass, ESLint-style), and re-lints. A batch
 * that adds a finding or lowers resume fidelity is retried one fix at a
 * time, and any fix that does so on its own is dropped with the reason. It
 * stops when nothing applies, after ten passes, or when the text comes back
 * to what it was two passes ago (two fixes undoing each other).
 *
 * Untouched lines keep their exact bytes; a changed record is written as
 * compact JSON in its original key order.
 */
import { sha256 } from '../core/hash.js';
import { bufferSource } from '../core/reader.js';
import { lintIndex, type LintOptions } from '../engine/linter.js';
import type { RecordSummary } from '../core/records.js';
import { abandonedAttemptOf } from '../core/repair-targets.js';
import { resumeModel } from '../core/resume.js';
import { schemaProblem } from '../core/schemas.js';
import { scoreSession } from '../core/score.js';
import { type SessionFile, SessionIndex } from '../core/session-index.js';
import type { Applicability, Finding, Fix, FixAlternative, JsonObject, RecordEdit } from '../core/types.js';
import type { AppliedFix, FilePlan, SkippedFix } from './types.js';

export const MAX_PASSES = 10;

/**
 * Warnings a relink may expose rather than cause: bringing history back can
 * reach a tool call or result whose partner the break itself destroyed.
 * The CLI drops both when it loads, so these measure what was lost; they
 * do not count against a fix (errors of these rules still do).
 */
const EXPOSED_BY_REPAIR: ReadonlySet<string> = new Set(['orphan-tool-result', 'dangling-tool-use']);

/** Rules whose fixes change what the other fixes would target: applied in a pass of their own. */
const CAUSE_RULES: ReadonlySet<string> = new Set(['duplicate-uuid', 'invalid-json']);

export interface PlanPolicy {
  /** Applicabilities to apply: `safe`, plus `unsafe` with `--unsafe`. */
  readonly allow: ReadonlySet<Applicability>;
  /**
   * Only these rules may fix (from `--rule`). Rules whose fixes are opt-in
   * (`meta.optInFix`) fix only when named here.
   */
  readonly rules?: ReadonlySet<string> | undefined;
  /**
   * Asked before a candidate fix is applied; false skips it. Interactive
   * `fix` prompts here; `--yes` answers true.
   */
  readonly decide?:
    | ((finding: Finding, fix: Fix, edits: readonly RecordEdit[], index: SessionIndex) => Promise<boolean | FixAlternative>)
    | undefined;
  /**
   * Repairs the person asked for by a flag rather than a rule's finding
   * (`--strip-thinking`): findings with a fix, computed on each state like
   * the rules' findings. They are tried first in every pass after the
   * causes pass, whatever `allow` and `rules` say (the flag is the consent),
   * and go through the same questions and gate as every other fix.
   */
  readonly requested?: ((index: SessionIndex) => readonly Finding[]) | undefined;
  /** Resolves parents in other files of the session group (see linkGroup). */
  readonly link?: ((index: SessionIndex) => void) | undefined;
  /**
   * Awaited between chunks of work (passes, each re-lint of a fix tried on
   * its own), so a Ctrl-C is seen while planning; it throws to stop.
   */
  readonly pause?: (() => Promise<void>) | undefined;
}


interface LineSpan {
  readonly start: number;
  /** End of content, before `\r\n` or `\n`. */
  readonly end: number;
  /** End including the line ending. */
  readonly next: number;
}

function splitLines(bytes: Buffer): LineSpan[] {
  const spans: LineSpan[] = [];
  let start = 0;
  while (start < bytes.length) {
    const nl = bytes.indexOf(0x0a, start);
    if (nl === -1) {
      spans.push({ start, end: bytes.length, next: bytes.length });
      break;
    }
    const end = nl > start && bytes[nl - 1] === 0x0d ? nl - 1 : nl;
    spans.push({ start, end, next: nl + 1 });
    start = nl + 1;
  }
  return spans;
}

/**
 * Applies record edits to a file's bytes. Lines are 1-based physical lines
 * of `bytes`. Returns undefined when an edit's `before` does not match the
 * line (a stale edit), so nothing is ever applied to a line that changed.
 */
export function applyEdits(bytes: Buffer, edits: readonly RecordEdit[]): Buffer | undefined {
  const spans = splitLines(bytes);
  const hasBom = bytes.length >= 3 && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;
  const replaced = new Map<number, readonly string[]>();
  const deleted = new Set<number>();
  const inserted = new Map<number, string[]>();
  for (const edit of edits) {
    const span = spans[edit.line - 1];
    if (edit.kind !== 'insertAfter') {
      if (span === undefined) return undefined;
      const contentStart = edit.line === 1 && hasBom ? span.start + 3 : span.start;
      if (bytes.toString('utf8', contentStart, span.end) !== edit.before) return undefined;
    }
    if (edit.kind === 'replace') replaced.set(edit.line, edit.after);
    else if (edit.kind === 'delete') deleted.add(edit.line);
    else {
      const list = inserted.get(edit.line) ?? [];
      list.push(...edit.after);
      inserted.set(edit.line, list);
    }
  }
  const parts: Buffer[] = [];
  spans.forEach((span, i) => {
    const line = i + 1;
    const eol = bytes.subarray(span.end, span.next);
    if (deleted.has(line)) {
      // keep nothing of the line
    } else if (replaced.has(line)) {
      const after = replaced.get(line) as readonly string[];
      parts.push(Buffer.from(after.join(eol.length > 0 ? eol.toString('latin1') : '\n')));
      // A replaced last line gets a line end: Claude Code appends after it.
      parts.push(eol.length > 0 ? eol : Buffer.from('\n'));
    } else {
      parts.push(bytes.subarray(span.start, span.next));
    }
    for (const text of inserted.get(line) ?? []) {
      if (span.next === span.end && !deleted.has(line)) parts.push(Buffer.from('\n'));
      parts.push(Buffer.from(`${text}\n`));
    }
  });
  return Buffer.concat(parts);
}

interface State {
  readonly bytes: Buffer;
  readonly index: SessionIndex;
  readonly findings: Finding[];
  /** The policy's requested repairs on this text (not findings: the gate does not count them). */
  readonly requested: readonly Finding[];
}

function stateOf(file: SessionFile, bytes: Buffer, lint: LintOptions, policy: PlanPolicy): State {
  const index = SessionIndex.build(file, () => bufferSource(bytes));
  policy.link?.(index);
  return { bytes, index, findings: lintIndex(index, lint), requested: policy.requested?.(index) ?? [] };
}

/** Per-rule counts at warning level or above: what a fix must not raise. */
function countsByRule(findings: readonly Finding[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const f of findings) {
    if (f.severity === 'info' || (f.severity === 'warning' && EXPOSED_BY_REPAIR.has(f.ruleId))) continue;
    const key = `${f.ruleId}:${f.severity}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/**
 * A message's identity across a repair: the fields a relink or a new uuid
 * leaves alone. Identical copies of one record share it, as they should.
 */
function messageKey(r: RecordSummary): string {
  return `${r.type}|${r.timestamp ?? ''}|${r.messageId ?? ''}|${r.blocks}|${r.toolUseIds.join(',')}|${r.toolResultIds.join(',')}|${r.excerpt}`;
}

function keysOf(messages: readonly RecordSummary[]): Set<string> {
  const keys = new Set<string>();
  for (const m of messages) keys.add(messageKey(m));
  return keys;
}

/**
 * What the gate measures every step against: the broken file's intended
 * conversation, and the rows no repair may bring into the resumed
 * conversation (abandoned attempts, history before the newest compaction).
 */
interface Reference {
  readonly intended: ReadonlySet<string>;
  readonly forbidden: ReadonlySet<string>;
}

function referenceOf(state: State): Reference {
  const model = resumeModel(state.index);
  // Rows no repair may bring into the resumed conversation, even where a
  // wrong stand-in brings them in today (the CLI's 5 s bridge can reach into
  // an abandoned attempt, or back across a compaction).
  const forbidden = new Set<string>();
  const leafSegment = model.leaf === undefined ? undefined : state.index.segmentOf(model.leaf);
  for (const r of state.index.records) {
    if (r.type !== 'user' && r.type !== 'assistant') continue;
    if (abandonedAttemptOf(state.index, r) !== -1 || (leafSegment !== undefined && state.index.segmentOf(r) < leafSegment)) {
      forbidden.add(messageKey(r));
    }
  }
  // Only the intended conversation is protected: what resume loads today
  // through a wrong stand-in may go.
  const intended = new Set([...keysOf(model.intendedMessages)].filter((k) => !forbidden.has(k)));
  return { intended, forbidden };
}

/**
 * Why `after` is worse than `before`, or undefined when it is not. A step
 * must not add a finding at warning level or above, must keep every
 * intended message that either reader (the CLI's loader and the SDK's)
 * loaded before, must bring in nothing no repair may (an abandoned attempt,
 * history from before a compaction), and must not shrink the intended
 * conversation itself.
 */
function regression(before: State, after: State, reference: Reference, exempt: ReadonlySet<string> = NONE): string | undefined {
  const was = countsByRule(before.findings);
  for (const [key, n] of countsByRule(after.findings)) {
    const previous = was.get(key) ?? 0;
    if (n > previous) return `it would add ${n - previous} ${key.replace(':', ' ')} finding(s)`;
  }
  const rb = resumeModel(before.index);
  const ra = resumeModel(after.index);
  for (const [reader, was, now] of [
    ['resume', rb.messages, ra.messages],
    ['the Agent SDK reader', rb.sdkMessages, ra.sdkMessages],
  ] as const) {
    const nowKeys = keysOf(now);
    const wasKeys = keysOf(was);
    const dropped = [...wasKeys].filter((k) => reference.intended.has(k) && !nowKeys.has(k) && !exempt.has(k)).length;
    if (dropped > 0) return `${reader} would no longer load ${dropped} message(s) it loads today`;
    const added = [...nowKeys].filter((k) => !wasKeys.has(k));
    const abandoned = added.filter((k) => reference.forbidden.has(k)).length;
    if (abandoned > 0) return `${reader} would load ${abandoned} message(s) from an abandoned attempt or from before a compaction`;
  }
  // What a repair may not bring in does not count: history from before a
  // compaction that a wrong stand-in made part of the intended conversation.
  const kept = (messages: readonly RecordSummary[]): number => messages.filter((m) => !reference.forbidden.has(messageKey(m))).length;
  const changed = rb.intendedMessages.filter((m) => exempt.has(messageKey(m))).length;
  const [wasTotal, nowTotal] = [kept(rb.intendedMessages) - changed, kept(ra.intendedMessages)];
  if (nowTotal < wasTotal) return `the intended conversation would shrink from ${wasTotal} to ${nowTotal} messages`;
  return undefined;
}

const NONE: ReadonlySet<string> = new Set();

/**
 * The messages fixes change on purpose (`Fix.changesContent`: thinking
 * dropped, an image replaced, a fresh message.id): the records on the lines
 * they rewrite or delete, which the gate does not count as lost.
 */
function changedOnPurpose(state: State, candidates: readonly Candidate[]): ReadonlySet<string> {
  const lines = new Set<number>();
  for (const c of candidates) {
    if (c.fix.changesContent !== true) continue;
    for (const e of c.edits) if (e.kind !== 'insertAfter') lines.add(e.line);
  }
  if (lines.size === 0) return NONE;
  return new Set(state.index.records.filter((r) => lines.has(r.line)).map(messageKey));
}

/** Why a record an edit writes would be malformed, if it would be. */
function invalidOutput(edits: readonly RecordEdit[]): string | undefined {
  for (const edit of edits) {
    if (edit.kind === 'delete') continue;
    for (const line of edit.after) {
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch {
        return `it would write a line that is not JSON`;
      }
      if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'it would write a line that is not a JSON object';
      const problem = schemaProblem(value as JsonObject);
      if (problem !== undefined) return `the record it writes would not match its type's schema (${problem})`;
    }
  }
  return undefined;
}

/** A line that is not compact JSON would change in more places than the fix. */
function rewritesOtherBytes(edit: RecordEdit): boolean {
  if (edit.kind !== 'replace') return false;
  try {
    return JSON.stringify(JSON.parse(edit.before)) !== edit.before;
  } catch {
    return false; // a damaged line being repaired: its bytes change by design
  }
}

/**
 * What names a fix across passes, so one declined stays declined for the
 * run: its rule, its record (a line without a uuid by its bytes, since an
 * earlier pass may move it) and its title with line numbers left out.
 */
function fixIdentity(finding: Finding, fix: Fix, edits: readonly RecordEdit[]): string {
  const subject = finding.uuid ?? sha256(edits.map((e) => (e.kind === 'insertAfter' ? `+${e.line}` : e.before)).join('\n'));
  return `${finding.ruleId}:${subject}:${fix.title.replace(/\bline \d+/g, 'line #')}`;
}

interface Candidate {
  readonly finding: Finding;
  readonly fix: Fix;
  readonly edits: readonly RecordEdit[];
}

export async function planFile(
  file: SessionFile,
  bytes: Buffer,
  lint: LintOptions,
  policy: PlanPolicy,
): Promise<FilePlan> {
  await policy.pause?.();
  const initial = stateOf(file, bytes, lint, policy);
  await policy.pause?.();
  const reference = referenceOf(initial);
  let current = initial;
  const applied: AppliedFix[] = [];
  const skipped = new Map<string, SkippedFix>();
  const declined = new Set<string>();
  const history: string[] = [sha256(bytes)];
  const ruleOrder = new Map(lint.rules.map((r, i) => [r.meta.id, i]));
  const optIn = new Set(lint.rules.filter((r) => r.meta.optInFix === true).map((r) => r.meta.id));
  const skip = (c: Candidate, reason: string): void => {
    const key = `${c.finding.ruleId}:${c.finding.line}:${c.fix.title}`;
    skipped.set(key, {
      ruleId: c.finding.ruleId,
      title: c.fix.title,
      applicability: c.fix.applicability,
      line: c.finding.line,
      reason,
    });
  };

  let causesDone = false;
  for (let pass = 1; pass <= MAX_PASSES; pass++) {
    await policy.pause?.();
    const candidates: Candidate[] = [];
    const touched = new Set<number>();
    // Causes before consequences: a uuid two records share, or a damaged
    // line, changes which row every other fix would point at. When there
    // are such fixes, a pass applies only them; the rest are planned again
    // on the result.
    const fixable = current.findings.filter((f) => f.fix !== undefined && (policy.rules === undefined || policy.rules.has(f.ruleId)));
    const causesFirst = !causesDone && fixable.some((f) => CAUSE_RULES.has(f.ruleId) && policy.allow.has((f.fix as Fix).applicability));
    const ordered = fixable
      .filter((f) => !causesFirst || CAUSE_RULES.has(f.ruleId))
      .sort((a, b) => a.line - b.line || (ruleOrder.get(a.ruleId) ?? 0) - (ruleOrder.get(b.ruleId) ?? 0));
    // What a flag asked for goes first, once the causes are repaired; a
    // rule's fix on the lines it rewrites waits for the next pass, where
    // it is usually gone.
    const requested = new Set(causesFirst ? [] : current.requested.filter((f) => f.fix !== undefined));
    const requestedLines = new Set<number>();
    for (const finding of [...requested, ...ordered]) {
      const fix = finding.fix as Fix;
      const asked = requested.has(finding);
      // Opt-in fixes change what a healthy session holds (content shape,
      // synthetic tool results); the person asks for them by naming the rule.
      if (!asked && optIn.has(finding.ruleId) && policy.rules?.has(finding.ruleId) !== true) continue;
      let edits: readonly RecordEdit[];
      try {
        edits = fix.edits();
      } catch (error) {
        // A record the fix cannot rewrite (nested thousands of levels deep, say): leave it as it is.
        skip(
          { finding, fix, edits: [] },
          `not applied: the record cannot be rewritten (${error instanceof RangeError ? 'nested too deep' : error instanceof Error ? error.message : String(error)})`,
        );
        continue;
      }
      if (edits.length === 0) continue;
      const identity = fixIdentity(finding, fix, edits);
      if (declined.has(identity)) continue;
      let applicability = fix.applicability;
      if (applicability === 'safe' && edits.some(rewritesOtherBytes)) applicability = 'unsafe';
      let candidate: Candidate = { finding, fix: { ...fix, applicability }, edits };
      if (edits.some((e) => requestedLines.has(e.line))) continue; // next pass
      if (!asked && !policy.allow.has(applicability)) {
        skip(candidate, applicability === 'unsafe' && fix.applicability === 'safe'
          ? 'the line is not compact JSON, so rewriting it changes other bytes too (apply with --unsafe)'
          : `${applicability} fix (apply with --unsafe)`);
        continue;
      }
      const malformed = invalidOutput(edits);
      if (malformed !== undefined) {
        skip(candidate, `not applied: ${malformed}`);
        continue;
      }
      if (edits.some((e) => touched.has(e.line))) continue; // next pass
      const answer = policy.decide === undefined ? true : await policy.decide(finding, candidate.fix, edits, current.index);
      if (answer === false) {
        declined.add(identity);
        skip(candidate, 'declined');
        continue;
      }
      if (answer !== true) {
        // The person picked another candidate row of a guessed fix.
        const chosen = answer.edits();
        if (chosen.length === 0 || chosen.some((e) => touched.has(e.line))) continue;
        candidate = { finding, fix: { ...candidate.fix, title: answer.title }, edits: chosen };
      }
      for (const e of candidate.edits) {
        touched.add(e.line);
        if (asked) requestedLines.add(e.line);
      }
      candidates.push(candidate);
    }
    if (candidates.length === 0) {
      if (!causesFirst) break;
      // Every cause was declined or refused: go on with the consequences.
      causesDone = true;
      continue;
    }

    const accepted = await applyBatch(file, current, candidates, lint, policy, skip, reference);
    if (accepted.applied.length === 0) {
      if (!causesFirst) break;
      causesDone = true;
      continue;
    }
    for (const c of accepted.applied) {
      applied.push({ ruleId: c.finding.ruleId, title: c.fix.title, applicability: c.fix.applicability, edits: c.edits, pass });
    }
    current = accepted.state;
    const hash = sha256(current.bytes);
    if (history.length >= 2 && history[history.length - 2] === hash) break; // fixes undo each other
    history.push(hash);
  }

  const before = resumeModel(initial.index);
  const after = resumeModel(current.index);
  const summary = (m: typeof before) => ({ loaded: m.loaded, total: m.total, fidelity: Math.round(m.fidelity * 1000) / 1000, sdk: m.sdk });
  return {
    file,
    before: bytes,
    sha256Before: history[0] as string,
    after: current.bytes,
    sha256After: sha256(current.bytes),
    applied,
    skipped: [...skipped.values()].filter((s) => !applied.some((a) => a.ruleId === s.ruleId && a.title === s.title)),
    remaining: current.findings,
    resumeBefore: summary(before),
    resumeAfter: summary(after),
    scoreBefore: scoreSession(initial.index, before).score,
    scoreAfter: scoreSession(current.index, after).score,
  };
}

/**
 * Applies a pass's fixes together when that is no worse; otherwise one at a
 * time, keeping each that is no worse on its own.
 */
async function applyBatch(
  file: SessionFile,
  state: State,
  candidates: readonly Candidate[],
  lint: LintOptions,
  policy: PlanPolicy,
  skip: (c: Candidate, reason: string) => void,
  reference: Reference,
): Promise<{ state: State; applied: Candidate[] }> {
  const all = applyEdits(state.bytes, candidates.flatMap((c) => c.edits));
  if (all !== undefined) {
    const next = stateOf(file, all, lint, policy);
    if (regression(state, next, reference, changedOnPurpose(state, candidates)) === undefined) return { state: next, applied: [...candidates] };
  }
  let current = state;
  const kept: Candidate[] = [];
  for (const c of candidates) {
    await policy.pause?.();
    // Edits were made against `state`; lines shift only after deletes and
    // inserts, so a fix is re-planned from the current text when needed.
    const edits = current === state ? c.edits : replan(c, current);
    if (edits === undefined) continue; // resolved by an earlier fix of the batch
    const bytes = applyEdits(current.bytes, edits);
    if (bytes === undefined) continue; // its lines moved; the next pass sees it again
    const next = stateOf(file, bytes, lint, policy);
    const why = regression(current, next, reference, changedOnPurpose(current, [{ ...c, edits }]));
    if (why !== undefined) {
      skip(c, `not applied: ${why}`);
      continue;
    }
    kept.push({ ...c, edits });
    current = next;
  }
  return { state: current, applied: kept };
}

/** The same fix (rule, record, title) found again in the current text. */
function replan(c: Candidate, state: State): readonly RecordEdit[] | undefined {
  for (const f of [...state.requested, ...state.findings]) {
    if (f.ruleId !== c.finding.ruleId || (f.uuid ?? f.line) !== (c.finding.uuid ?? c.finding.line) || f.fix === undefined) continue;
    if (f.fix.title === c.fix.title) return f.fix.edits();
    // A candidate the person chose instead of the planner's first choice.
    const chosen = f.fix.alternatives?.find((a) => a.title === c.fix.title);
    if (chosen !== undefined) return chosen.edits();
  }
  return undefined;
}
