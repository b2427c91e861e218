/**
 * The fix planner. It only plans: given a file's bytes (a source it reads
 * from, never a copy of the file) it returns the new bytes as a
 * {@link Rewrite} (ranges of the old bytes and the lines fixes rewrote), and
 * which fixes made them. Nothing here touches the file system.
 *
 * Each pass lints the current text, takes the fixes the policy allows in
 * line order, applies those whose lines no earlier fix of the pass touched
 * (the rest wait for the next pass, ESLint-style), and re-lints. A batch
 * that adds a finding or lowers resume fidelity is retried one fix at a
 * time, and any fix that does so on its own is dropped with the reason. It
 * stops when nothing applies, after ten passes, or when the text comes back
 * to what it was two passes ago (two fixes undoing each other: neither is
 * reported as made, both as not applied).
 *
 * Untouched lines keep their exact bytes; a changed record is written as
 * compact JSON in its original key order.
 *
 * Memory: a session can be 1 GB and its index a few hundred MB, so at most
 * one text's index is alive at a time. What the gate compares a step
 * against is kept apart from the index that produced it (a {@link Gate}:
 * finding counts and hashed message keys), and a text whose index was let
 * go is indexed again in the rare case it is needed again (a fix refused
 * after another was accepted).
 */
import { sha256 } from '../core/hash.js';
import { bufferSource, type ByteSource } from '../core/reader.js';
import { lintIndex, type LintOptions } from '../engine/linter.js';
import type { RecordSummary } from '../core/records.js';
import { abandonedAttemptOf } from '../core/repair-targets.js';
import { resumeModel, type ResumeModel } from '../core/resume.js';
import { violationSummaries } from '../core/api-request.js';
import { schemaProblem } from '../core/schemas.js';
import { scoreSession } from '../core/score.js';
import { type LineTable, type SessionFile, type SessionIndex, sessionIdOf } from '../core/session-index.js';
import type { Applicability, Finding, Fix, FixAlternative, JsonObject, RecordEdit, ResumeSummary } from '../core/types.js';
import { applyLineEdits, indexRewrite, Rewrite } from './rewrite.js';
import type { AppliedFix, FilePlan, SkippedFix } from './types.js';
import { remainingOf } from './remaining.js';
import { collectGarbage } from '../tuning.js';

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
  /**
   * Also check the request resume would send once fixed (`resumeAfter`'s
   * `apiValid` and `apiViolations`), for a report of what `check` would say
   * (`fix --dry-run --format json|sarif|github`); it costs a pass over the
   * conversation per planning pass.
   */
  readonly checkRequest?: boolean | undefined;
}


/** A text the planner is looking at: its bytes as a rewrite of the original, and what the linter says of it. */
interface State {
  readonly rewrite: Rewrite;
  readonly sha256: string;
  readonly index: SessionIndex;
  readonly findings: Finding[];
  /** The policy's requested repairs on this text (not findings: the gate does not count them). */
  readonly requested: readonly Finding[];
  /** What the gate compares against this text, computed once (as the step that made it, and as the text the next step starts from). */
  readonly gate: Gate;
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
 * Kept as a 53-bit hash of those fields, so that the sets the gate keeps
 * for a session of 300,000 messages stay a few MB.
 */
function messageKey(r: RecordSummary): number {
  return keyHash(
    `${r.type}|${r.timestamp ?? ''}|${r.messageId ?? ''}|${r.blocks}|${r.toolUseIds.join(',')}|${r.toolResultIds.join(',')}|${r.excerpt}`,
  );
}

/** Two 32-bit FNV-1a style hashes of the UTF-16 units, with different seeds and primes, as one 53-bit number. */
function keyHash(text: string): number {
  let a = 0x811c9dc5;
  let b = 0x01000193 ^ text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return (a >>> 0) * 0x200000 + ((b >>> 0) & 0x1fffff);
}

/**
 * A set of message keys as a sorted array: 8 bytes a key, where a `Set` of
 * numbers costs about 40 (a boxed number and its hash-table slot).
 */
class KeySet {
  private constructor(private readonly keys: Float64Array) {}

  static of(keys: Iterable<number>): KeySet {
    const sorted = Float64Array.from(keys).sort();
    let n = 0;
    for (let i = 0; i < sorted.length; i++) if (i === 0 || sorted[i] !== sorted[n - 1]) sorted[n++] = sorted[i] as number;
    return new KeySet(sorted.slice(0, n));
  }

  has(key: number): boolean {
    let lo = 0;
    let hi = this.keys.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const at = this.keys[mid] as number;
      if (at === key) return true;
      if (at < key) lo = mid + 1;
      else hi = mid - 1;
    }
    return false;
  }

  [Symbol.iterator](): Iterator<number> {
    return this.keys[Symbol.iterator]();
  }
}

/** What the gate asks of a set of keys. */
interface Keys {
  has(key: number): boolean;
}

function keysOf(messages: readonly RecordSummary[]): KeySet {
  return KeySet.of(messages.map(messageKey));
}

/**
 * What the gate measures every step against: the broken file's intended
 * conversation, and the rows no repair may bring into the resumed
 * conversation (abandoned attempts, history before the newest compaction).
 */
interface Reference {
  readonly intended: Keys;
  readonly forbidden: Keys;
}

function referenceOf(state: State): Reference {
  const model = resumeModel(state.index);
  // Rows no repair may bring into the resumed conversation, even where a
  // wrong stand-in brings them in today (the CLI's 5 s bridge can reach into
  // an abandoned attempt, or back across a compaction).
  const forbiddenKeys: number[] = [];
  const leafSegment = model.leaf === undefined ? undefined : state.index.segmentOf(model.leaf);
  for (const r of state.index.records) {
    if (r.type !== 'user' && r.type !== 'assistant') continue;
    if (abandonedAttemptOf(state.index, r) !== -1 || (leafSegment !== undefined && state.index.segmentOf(r) < leafSegment)) {
      forbiddenKeys.push(messageKey(r));
    }
  }
  const forbidden = KeySet.of(forbiddenKeys);
  // Only the intended conversation is protected: what resume loads today
  // through a wrong stand-in may go.
  const intended = KeySet.of(state.gate.intended.filter((k) => !forbidden.has(k)));
  return { intended, forbidden };
}

/** What the gate needs of the text before a step, once its index is let go. */
interface Gate {
  readonly counts: ReadonlyMap<string, number>;
  /** Messages the CLI's loader loads. */
  readonly cli: KeySet;
  /** Messages the Agent SDK's reader loads. */
  readonly sdk: KeySet;
  /** The intended conversation's messages, in order, copies counted. */
  readonly intended: Float64Array;
}

function gateOf(index: SessionIndex, findings: readonly Finding[]): Gate {
  const model = resumeModel(index);
  return {
    counts: countsByRule(findings),
    cli: keysOf(model.messages),
    sdk: keysOf(model.sdkMessages),
    intended: Float64Array.from(model.intendedMessages, messageKey),
  };
}

/**
 * Why the text `after` describes is worse than the one `before` describes,
 * or undefined when it is not. A step must not add a finding at warning
 * level or above, must keep every intended message that either reader (the
 * CLI's loader and the SDK's) loaded before and drop no more of the others
 * it loaded than intended messages it brings back, must bring in nothing no
 * repair may (an abandoned attempt, history from before a compaction), and
 * must not shrink the intended conversation itself.
 */
function regression(before: Gate, after: Gate, reference: Reference, exempt: Keys = NONE): string | undefined {
  for (const [key, n] of after.counts) {
    const previous = before.counts.get(key) ?? 0;
    if (n > previous) return `it would add ${n - previous} ${key.replace(':', ' ')} finding(s)`;
  }
  for (const [reader, wasKeys, nowKeys] of [
    ['resume', before.cli, after.cli],
    ['the Agent SDK reader', before.sdk, after.sdk],
  ] as const) {
    let dropped = 0;
    // Loaded today off the intended conversation (through a wrong stand-in, say): may go, but only for as many
    // intended messages brought back. A repair whose target is wrong drops those and brings back nothing; the
    // intended conversation, built from the same targets, would not notice.
    let droppedOther = 0;
    for (const k of wasKeys) {
      if (nowKeys.has(k) || exempt.has(k) || reference.forbidden.has(k)) continue;
      if (reference.intended.has(k)) dropped++;
      else droppedOther++;
    }
    if (dropped > 0) return `${reader} would no longer load ${dropped} message(s) it loads today`;
    if (droppedOther > 0) {
      let gained = 0;
      for (const k of nowKeys) if (!wasKeys.has(k) && reference.intended.has(k)) gained++;
      if (droppedOther > gained) return `${reader} would no longer load ${droppedOther} message(s) it loads today, for ${gained} it does not`;
    }
    let abandoned = 0;
    for (const k of nowKeys) if (!wasKeys.has(k) && reference.forbidden.has(k)) abandoned++;
    if (abandoned > 0) return `${reader} would load ${abandoned} message(s) from an abandoned attempt or from before a compaction`;
  }
  // What a repair may not bring in does not count: history from before a
  // compaction that a wrong stand-in made part of the intended conversation.
  let wasTotal = 0;
  for (const k of before.intended) {
    if (!reference.forbidden.has(k)) wasTotal++;
    if (exempt.has(k)) wasTotal--;
  }
  let nowTotal = 0;
  for (const k of after.intended) if (!reference.forbidden.has(k)) nowTotal++;
  if (nowTotal < wasTotal) return `the intended conversation would shrink from ${wasTotal} to ${nowTotal} messages`;
  return undefined;
}

const NONE: ReadonlySet<number> = new Set();

/**
 * The messages fixes change on purpose (`Fix.changesContent`: thinking
 * dropped, an image replaced, a fresh message.id): the records on the lines
 * they rewrite or delete, which the gate does not count as lost; for the
 * fixes together and for each alone, from one pass over the records.
 */
function exemptions(state: State, candidates: readonly Candidate[]): { all: ReadonlySet<number>; each: ReadonlyArray<ReadonlySet<number>> } {
  const linesOf = candidates.map((c) => (c.changesContent ? c.edits.filter((e) => e.kind !== 'insertAfter').map((e) => e.line) : []));
  const wanted = new Set(linesOf.flat());
  if (wanted.size === 0) return { all: NONE, each: candidates.map(() => NONE) };
  const keysByLine = new Map<number, number[]>();
  for (const r of state.index.records) {
    if (!wanted.has(r.line)) continue;
    const keys = keysByLine.get(r.line);
    if (keys === undefined) keysByLine.set(r.line, [messageKey(r)]);
    else keys.push(messageKey(r));
  }
  const keysOfLines = (lines: readonly number[]): ReadonlySet<number> => new Set(lines.flatMap((line) => keysByLine.get(line) ?? []));
  return { all: keysOfLines([...wanted]), each: linesOf.map(keysOfLines) };
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

/**
 * A fix chosen for a pass, as plain data: it holds no finding or fix
 * object, whose closures would keep the index of the text alive.
 */
interface Candidate {
  /** See {@link fixIdentity}. */
  readonly identity: string;
  readonly ruleId: string;
  readonly uuid: string | undefined;
  readonly line: number;
  readonly title: string;
  readonly applicability: Applicability;
  readonly changesContent: boolean;
  readonly edits: readonly RecordEdit[];
}

function candidateOf(finding: Finding, fix: Fix, edits: readonly RecordEdit[], identity = ''): Candidate {
  return {
    identity,
    ruleId: finding.ruleId,
    uuid: finding.uuid,
    line: finding.line,
    title: fix.title,
    applicability: fix.applicability,
    changesContent: fix.changesContent === true,
    edits,
  };
}

/** The fixes of one pass, and what applying them needs of the text they were planned on. */
interface Batch {
  readonly candidates: readonly Candidate[];
  /** The text they were planned on, its hash, where its lines lie, and what a plan ending on it says. */
  readonly rewrite: Rewrite;
  readonly sha256: string;
  readonly end: EndFacts;
  readonly lines: LineTable;
  readonly gate: Gate;
  /** What the whole batch, and each fix alone, changes on purpose. */
  readonly exemptAll: ReadonlySet<number>;
  readonly exemptEach: ReadonlyArray<ReadonlySet<number>>;
}

function batchOf(state: State, candidates: readonly Candidate[], checkRequest: boolean): Batch {
  const exempt = exemptions(state, candidates);
  return {
    candidates,
    rewrite: state.rewrite,
    sha256: state.sha256,
    end: endFactsOf(state, checkRequest),
    lines: state.index.lineTable(),
    gate: state.gate,
    exemptAll: exempt.all,
    exemptEach: exempt.each,
  };
}

/** One fix, replanned on the state after earlier fixes of its batch, with what applying it needs. */
interface Step {
  readonly candidate: Candidate;
  readonly rewrite: Rewrite;
  /** The hash of the text it is tried on. */
  readonly sha256: string;
  readonly lines: LineTable;
  readonly gate: Gate;
  readonly exempt: ReadonlySet<number>;
}

/** The same fix (rule, record, title) found again in the current text. */
function replan(c: Candidate, state: State): readonly RecordEdit[] | undefined {
  for (const f of [...state.requested, ...state.findings]) {
    if (f.ruleId !== c.ruleId || (f.uuid ?? f.line) !== (c.uuid ?? c.line) || f.fix === undefined) continue;
    if (f.fix.title === c.title) return f.fix.edits();
    // A candidate the person chose instead of the planner's first choice.
    const chosen = f.fix.alternatives?.find((a) => a.title === c.title);
    if (chosen !== undefined) return chosen.edits();
  }
  return undefined;
}

function stepOf(state: State, c: Candidate): Step | undefined {
  const edits = replan(c, state);
  if (edits === undefined) return undefined; // resolved by an earlier fix of the batch
  const candidate = { ...c, edits };
  return {
    candidate,
    rewrite: state.rewrite,
    sha256: state.sha256,
    lines: state.index.lineTable(),
    gate: state.gate,
    exempt: exemptions(state, [candidate]).all,
  };
}

function summaryOf(m: ResumeModel): ResumeSummary {
  return { loaded: m.loaded, total: m.total, fidelity: Math.round(m.fidelity * 1000) / 1000, sdk: m.sdk };
}

/** The rules whose fixes change what a healthy session holds (content shape, synthetic tool results): applied only when named. */
export function optInRuleIds(lint: Pick<LintOptions, 'rules'>): ReadonlySet<string> {
  return new Set(lint.rules.filter((r) => r.meta.optInFix === true).map((r) => r.meta.id));
}

/**
 * Whether a plan would offer this finding's fix without a flag asking for
 * it: it has one, its rule may fix (`rules`, from `--rule`), and a rule
 * whose fixes are opt-in ({@link optInRuleIds}) is named there. What `fix`
 * relies on to leave a file with no such finding unplanned.
 */
export function offersFix(finding: Finding, optIn: ReadonlySet<string>, rules: ReadonlySet<string> | undefined): boolean {
  if (finding.fix === undefined || (rules !== undefined && !rules.has(finding.ruleId))) return false;
  return rules?.has(finding.ruleId) === true || !optIn.has(finding.ruleId);
}

/**
 * Plans the repair of one file. `input` is its bytes, or a source to read
 * them from that stays open (and unchanged in its first `size` bytes) until
 * the plan has been written or shown; the plan covers those `size` bytes.
 */
export async function planFile(
  file: SessionFile,
  input: Buffer | ByteSource,
  lint: LintOptions,
  policy: PlanPolicy,
): Promise<FilePlan> {
  const original = Buffer.isBuffer(input) ? bufferSource(input) : input;
  const size = original.size;
  /** Indexes and lints a text; its sha256 comes from the same read. */
  const build = (rewrite: Rewrite): State => {
    // The text indexed before this one has been let go: see collectGarbage.
    collectGarbage(rewrite.size);
    const { index, sha256 } = indexRewrite(file, rewrite, original);
    policy.link?.(index);
    const findings = lintIndex(index, lint);
    return { rewrite, sha256, index, findings, requested: policy.requested?.(index) ?? [], gate: gateOf(index, findings) };
  };

  await policy.pause?.();
  // The one text whose index is alive. Only this slot refers to it, so that
  // it can be let go before the next text is indexed: a local variable in a
  // suspended async frame would keep it.
  const slot: { state: State | undefined } = { state: build(Rewrite.identity(size)) };
  const currentState = (): State => {
    if (slot.state === undefined) throw new Error('planFile: no current text');
    return slot.state;
  };
  await policy.pause?.();
  const { sha256Before, reference, resumeBefore, scoreBefore, sessionId } = startOf(currentState());
  const applied: AppliedFix[] = [];
  const skipped = new Map<string, SkippedFix>();
  const declined = new Set<string>();
  /** Why the gate refused a fix on a text: `<text sha256>\n<fix identity>`. The same fix on the same text is refused again. */
  const refused = new Map<string, string>();
  const history: string[] = [sha256Before];
  const ruleOrder = new Map(lint.rules.map((r, i) => [r.meta.id, i]));
  const optIn = optInRuleIds(lint);
  const skip = (c: Pick<Candidate, 'ruleId' | 'line' | 'title' | 'applicability'>, reason: string): void => {
    const key = `${c.ruleId}:${c.line}:${c.title}`;
    skipped.set(key, { ruleId: c.ruleId, title: c.title, applicability: c.applicability, line: c.line, reason });
  };

  /** The fixes a pass takes from `state`, in order, each asked about and checked. */
  const choose = async (state: State, causesFirst: boolean): Promise<Candidate[]> => {
    const candidates: Candidate[] = [];
    const touched = new Set<number>();
    /** Lines the fixes chosen so far rely on staying as they are (a relink's target row). */
    const relied = new Set<number>();
    const ordered = state.findings
      .filter((f) => offersFix(f, optIn, policy.rules))
      .filter((f) => !causesFirst || CAUSE_RULES.has(f.ruleId))
      .sort((a, b) => a.line - b.line || (ruleOrder.get(a.ruleId) ?? 0) - (ruleOrder.get(b.ruleId) ?? 0));
    // What a flag asked for goes first, once the causes are repaired; a
    // rule's fix on the lines it rewrites waits for the next pass, where
    // it is usually gone.
    const requested = new Set(causesFirst ? [] : state.requested.filter((f) => f.fix !== undefined));
    const requestedLines = new Set<number>();
    for (const finding of [...requested, ...ordered]) {
      const fix = finding.fix as Fix;
      const asked = requested.has(finding);
      let edits: readonly RecordEdit[];
      try {
        edits = fix.edits();
      } catch (error) {
        // A record the fix cannot rewrite (nested thousands of levels deep, say): leave it as it is.
        skip(
          candidateOf(finding, fix, []),
          `not applied: the record cannot be rewritten (${error instanceof RangeError ? 'nested too deep' : error instanceof Error ? error.message : String(error)})`,
        );
        continue;
      }
      if (edits.length === 0) continue;
      const identity = fixIdentity(finding, fix, edits);
      if (declined.has(identity)) continue;
      let applicability = fix.applicability;
      if (applicability === 'safe' && edits.some(rewritesOtherBytes)) applicability = 'unsafe';
      const marked: Fix = { ...fix, applicability };
      let candidate = candidateOf(finding, marked, edits, identity);
      if (edits.some((e) => requestedLines.has(e.line))) continue; // next pass
      if (!asked && !policy.allow.has(applicability)) {
        skip(
          candidate,
          applicability === 'unsafe' && fix.applicability === 'safe'
            ? 'the line is not compact JSON, so rewriting it changes other bytes too (apply with --unsafe)'
            : `${applicability} fix (apply with --unsafe)`,
        );
        continue;
      }
      const malformed = invalidOutput(edits);
      if (malformed !== undefined) {
        skip(candidate, `not applied: ${malformed}`);
        continue;
      }
      // Next pass: a line an earlier fix of this pass edits or relies on,
      // or a fix relying on a line an earlier one edits (a relink to a row
      // a fix of this pass deletes).
      if (edits.some((e) => touched.has(e.line) || relied.has(e.line)) || fix.dependsOn?.some((line) => touched.has(line)) === true) continue;
      // Refused on this very text before (by the gate, in an earlier pass): refused again, without asking.
      const refusal = refused.get(`${state.sha256}\n${identity}`);
      if (refusal !== undefined) {
        skip(candidate, `not applied: ${refusal}`);
        continue;
      }
      const answer = policy.decide === undefined ? true : await policy.decide(finding, marked, edits, state.index);
      if (answer === false) {
        declined.add(identity);
        skip(candidate, 'declined');
        continue;
      }
      if (answer !== true) {
        // The person picked another candidate row of a guessed fix.
        const chosen = answer.edits();
        if (chosen.length === 0 || chosen.some((e) => touched.has(e.line) || relied.has(e.line)) || touched.has(answer.target.line)) continue;
        candidate = { ...candidate, title: answer.title, edits: chosen, identity: fixIdentity(finding, { ...marked, title: answer.title }, chosen) };
        relied.add(answer.target.line);
      } else {
        for (const line of fix.dependsOn ?? []) relied.add(line);
      }
      for (const e of candidate.edits) {
        touched.add(e.line);
        if (asked) requestedLines.add(e.line);
      }
      candidates.push(candidate);
    }
    return candidates;
  };

  /**
   * Applies a pass's fixes together when that is no worse; otherwise one at
   * a time, keeping each that is no worse on its own. Returns the text after
   * them in `slot` and the fixes kept, with their edits as applied.
   */
  const applyBatch = async (batch: Batch): Promise<Candidate[]> => {
    const together = applyLineEdits(batch.rewrite, original, batch.lines, batch.candidates.flatMap((c) => c.edits));
    const why = together === undefined ? undefined : refuseTogether(together, batch);
    if (together !== undefined && why === undefined) return [...batch.candidates];
    const only = batch.candidates.length === 1 ? batch.candidates[0] : undefined;
    if (only !== undefined && why !== undefined) {
      // Alone it would be tried on the same text with the same edits.
      skip(only, `not applied: ${why}`);
      refused.set(`${batch.sha256}\n${only.identity}`, why);
      return [];
    }
    // The text after the fixes kept so far: `held.state` while its index is
    // alive, else indexed again from `latest` when a fix needs it.
    const held: { state: State | undefined } = { state: undefined };
    let latest = batch.rewrite;
    const kept: Candidate[] = [];
    for (let k = 0; k < batch.candidates.length; k++) {
      await policy.pause?.();
      const taken = attempt(batch, k, kept.length === 0, held, latest);
      if (taken !== undefined) {
        kept.push(taken);
        latest = (held.state as State).rewrite;
      }
    }
    // Nothing kept: the batch's text stays, and is indexed again only if another pass needs it.
    slot.state = kept.length === 0 ? undefined : (held.state ?? build(latest));
    held.state = undefined;
    return kept;
  };

  /** Why the whole batch is worse, or undefined: then its text is the current one. */
  const refuseTogether = (together: Rewrite, batch: Batch): string | undefined => {
    const outcome = tryStep(together, batch.gate, batch.exemptAll);
    if (typeof outcome === 'string') return outcome;
    slot.state = outcome;
    return undefined;
  };

  /**
   * Tries fix `k` of a batch on its own, on the batch's text when no fix of
   * it was kept yet (its edits stand), else on the text after the kept ones
   * (planned again there). Kept: returns it with its edits as applied and
   * leaves the text after it in `held`; refused: records why.
   */
  const attempt = (batch: Batch, k: number, first: boolean, held: { state: State | undefined }, latest: Rewrite): Candidate | undefined => {
    const c = batch.candidates[k] as Candidate;
    // Edits were made against the batch's text; lines shift after deletes
    // and inserts, so a fix is planned again once an earlier one is kept.
    const step: Step | undefined = first
      ? { candidate: c, rewrite: batch.rewrite, sha256: batch.sha256, lines: batch.lines, gate: batch.gate, exempt: batch.exemptEach[k] ?? NONE }
      : replanHeld(held, latest, c);
    if (step === undefined) return undefined; // resolved by an earlier fix of the batch
    const next = applyLineEdits(step.rewrite, original, step.lines, step.candidate.edits);
    if (next === undefined) return undefined; // its lines moved; the next pass sees it again
    const outcome = tryStep(next, step.gate, step.exempt);
    if (typeof outcome === 'string') {
      skip(c, `not applied: ${outcome}`);
      refused.set(`${step.sha256}\n${step.candidate.identity}`, outcome);
      return undefined;
    }
    held.state = outcome;
    return step.candidate;
  };

  /** {@link stepOf} on the held text (indexed again if it was let go), which is let go after. */
  const replanHeld = (held: { state: State | undefined }, latest: Rewrite, c: Candidate): Step | undefined => {
    const from = held.state ?? build(latest);
    held.state = undefined;
    return stepOf(from, c);
  };

  /** The text `rewrite` indexed, when it is no worse than what `gate` describes; else why not. */
  const tryStep = (rewrite: Rewrite, gate: Gate, exempt: ReadonlySet<number>): State | string => {
    const next = build(rewrite);
    return regression(gate, next.gate, reference, exempt) ?? next;
  };

  /**
   * What a pass applies to `state`: whether it is the causes' pass, and its
   * fixes with what applying them needs, holding nothing of the index.
   */
  const prepare = async (state: State, causesDone: boolean): Promise<{ causesFirst: boolean; batch: Batch | undefined }> => {
    // Causes before consequences: a uuid two records share, or a damaged
    // line, changes which row every other fix would point at. When there
    // are such fixes, a pass applies only them; the rest are planned again
    // on the result.
    const causesFirst =
      !causesDone &&
      state.findings.some((f) => CAUSE_RULES.has(f.ruleId) && offersFix(f, optIn, policy.rules) && policy.allow.has((f.fix as Fix).applicability));
    const candidates = await choose(state, causesFirst);
    return { causesFirst, batch: candidates.length === 0 ? undefined : batchOf(state, candidates, policy.checkRequest === true) };
  };

  let causesDone = false;
  /** What the plan says when its last pass kept nothing (its text was let go). */
  let unchanged: EndFacts | undefined;
  /** The last pass allowed applied fixes: the next one might have applied more. */
  let cutShort: number | undefined;
  for (let pass = 1; pass <= MAX_PASSES; pass++) {
    await policy.pause?.();
    const { causesFirst, batch } = await prepare(currentState(), causesDone);
    if (batch === undefined) {
      if (!causesFirst) break;
      // Every cause was declined or refused: go on with the consequences.
      causesDone = true;
      continue;
    }
    slot.state = undefined; // the next text is indexed without this one's index in memory
    const kept = await applyBatch(batch);
    if (kept.length === 0) {
      if (!causesFirst) {
        unchanged = batch.end;
        break;
      }
      slot.state = build(batch.rewrite);
      causesDone = true;
      continue;
    }
    for (const c of kept) {
      applied.push({ ruleId: c.ruleId, title: c.title, applicability: c.applicability, edits: c.edits, pass });
    }
    cutShort = pass === MAX_PASSES ? pass : undefined;
    const hash = currentState().sha256;
    if (history.length >= 2 && history[history.length - 2] === hash) {
      cutShort = undefined;
      // The last two passes undid each other: the text is what it was before
      // them, so none of their fixes is in it, and none is reported as made.
      const first = applied.findIndex((a) => a.pass >= pass - 1);
      for (const a of first === -1 ? [] : applied.splice(first)) {
        skip({ ruleId: a.ruleId, line: a.edits[0]?.line ?? 1, title: a.title, applicability: a.applicability }, 'not applied: another fix undoes it');
      }
      break;
    }
    history.push(hash);
  }

  return endOf(unchanged ?? endFactsOf(currentState(), policy.checkRequest === true), {
    file,
    sizeBefore: size,
    sha256Before,
    applied,
    skipped: notApplied([...skipped.values()], applied),
    resumeBefore,
    scoreBefore,
    sessionId,
    cutShortAfter: cutShort,
  });
}

/** The skipped fixes no pass applied after all (a set, not a scan of the applied per skipped: there can be 100,000 of each). */
function notApplied(skipped: readonly SkippedFix[], applied: readonly AppliedFix[]): SkippedFix[] {
  const done = new Set(applied.map((a) => `${a.ruleId}\u0000${a.title}`));
  return skipped.filter((s) => !done.has(`${s.ruleId}\u0000${s.title}`));
}

/** What the first text gives the whole plan: its hash, the gate's reference, and the figures before. */
function startOf(state: State): { sha256Before: string; reference: Reference; resumeBefore: ResumeSummary; scoreBefore: number; sessionId: string | undefined } {
  const model = resumeModel(state.index);
  return {
    sessionId: sessionIdOf(state.index),
    sha256Before: state.sha256,
    reference: referenceOf(state),
    resumeBefore: summaryOf(model),
    scoreBefore: scoreSession(state.index, model).score,
  };
}

/** What a plan ending on a text says of it. */
type EndFacts = Pick<FilePlan, 'rewrite' | 'sha256After' | 'remaining' | 'remainingInfo' | 'resumeAfter' | 'scoreAfter'>;

function endFactsOf(state: State, checkRequest: boolean): EndFacts {
  const after = resumeModel(state.index);
  const request = checkRequest ? after.request() : undefined;
  return {
    rewrite: state.rewrite,
    sha256After: state.sha256,
    ...remainingOf(state.findings),
    resumeAfter: request === undefined ? summaryOf(after) : { ...summaryOf(after), apiValid: request.valid, apiViolations: violationSummaries(request) },
    scoreAfter: scoreSession(state.index, after).score,
  };
}

/** The plan: what was decided, and what the last text says. */
function endOf(end: EndFacts, decided: Omit<FilePlan, keyof EndFacts>): FilePlan {
  return { ...decided, ...end };
}
