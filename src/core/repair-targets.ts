/**
 * Where each break of a file should be repaired to: the one answer that the
 * rules' fixes, the intended conversation (`resume.total`) and the fix
 * planner's gate share.
 *
 * A broken link (a parent that exists nowhere, a null parent in mid-file,
 * the link that closes a cycle) is pointed at the row the orphan continues:
 *
 * 1. the row its content answers: the assistant row holding the tool call
 *    its tool_result answers, or the previous row of the API response its
 *    `message.id` continues;
 * 2. for a prompt typed again at a rewind (an earlier prompt with the same
 *    text hangs from an earlier row), the row that earlier prompt hangs
 *    from: the rewind point, not the tip of the abandoned attempt;
 * 3. else the latest row at most 5 s older (what `claude --resume` bridges
 *    to itself), then the previous row in file order.
 *
 * Candidates are user and assistant rows on the same side (main chain or
 * sidechain) and in the same compaction segment, never the orphan's own
 * descendants (a cycle), never the superseded body of a repeated uuid, and
 * never a row of an abandoned attempt (a branch left at a rewind) unless the
 * orphan is in that attempt too. When the signals disagree the choice is a
 * guess: the fix is unsafe and the alternatives are named.
 *
 * A uuid carried by two different records is resolved first: the later
 * copy gets a new uuid, and each row naming the shared uuid as parent goes
 * to the copy it belongs with (its tool results answer that copy's call, it
 * continues that copy's response, or that copy is the nearest before it).
 */
import { createHash } from 'node:crypto';
import { expectedRoot, isMainChainRow, TIMESTAMP_BRIDGE_MS } from './analysis.js';
import { firstPosition, ListTable, MinTree } from './collections.js';
import { type RecordSummary, isCompactBoundary } from './records.js';
import type { SessionIndex } from './session-index.js';


/** Why a row was chosen; `answered`: the user row the first row of a response answers (misplaced-parent). */
export type RelinkReason = 'tool-call' | 'same-response' | 'rewind-point' | 'bridge' | 'previous' | 'answered';

export interface RelinkChoice {
  readonly target: RecordSummary;
  readonly reason: RelinkReason;
  /** Other rows the orphan may continue; non-empty when the choice is a guess. */
  readonly alternatives: readonly RecordSummary[];
}

/** A v4-shaped uuid derived from the old uuid and its line: stable across runs. */
export function derivedUuid(uuid: string, line: number): string {
  const h = createHash('sha256').update(`${uuid}:${line}`).digest('hex');
  const variant = ((Number.parseInt(h[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

function isConversational(r: RecordSummary): boolean {
  return r.type === 'user' || r.type === 'assistant';
}

/** A prompt a person typed: a user row that is not tool results, meta or a summary. */
export function isTypedPrompt(r: RecordSummary): boolean {
  return (
    r.type === 'user' &&
    !r.isMeta &&
    !r.isCompactSummary &&
    r.toolResultIds.length === 0 &&
    r.commandTag === undefined &&
    !r.interrupt &&
    r.excerpt.trim() !== ''
  );
}

/**
 * What the repair choices look up in a file, each table built on its first
 * use: a file with one broken link asks one or two of them, and each costs
 * a pass over every record (the time order a sort of them).
 */
class Facts {
  private byTimeTable: TimeOrder | undefined;
  private abandonedTable: Int32Array | undefined;
  private toolOwnerTable: ListTable<string, RecordSummary> | undefined;
  private responseTable: ListTable<string, RecordSummary> | undefined;

  constructor(private readonly index: SessionIndex) {}

  /** Conversational rows of the file, latest time last (NaN times left out), with their ordinals. */
  get byTime(): TimeOrder {
    if (this.byTimeTable === undefined) {
      const rows = this.index.effectiveRecords().filter((r) => isConversational(r) && r.uuid !== undefined && !Number.isNaN(r.time));
      rows.sort((a, b) => a.time - b.time || a.ordinal - b.ordinal);
      this.byTimeTable = { rows, ordinals: new MinTree(rows.map((r) => r.ordinal)) };
    }
    return this.byTimeTable;
  }

  /** Ordinals of rows on abandoned attempts (branches left at a rewind), by abandoned branch root. */
  get abandonedRoot(): Int32Array {
    return (this.abandonedTable ??= abandonedAttempts(this.index));
  }

  /** Assistant rows by tool_use id. */
  get toolOwners(): ListTable<string, RecordSummary> {
    if (this.toolOwnerTable === undefined) {
      const table = new ListTable<string, RecordSummary>();
      for (const r of this.index.effectiveRecords()) if (isAssistantWithUuid(r)) for (const t of r.toolUseIds) table.add(t, r);
      this.toolOwnerTable = table.trim();
    }
    return this.toolOwnerTable;
  }

  /** Effective assistant rows by message id. */
  get responses(): ListTable<string, RecordSummary> {
    if (this.responseTable === undefined) {
      const table = new ListTable<string, RecordSummary>();
      for (const r of this.index.effectiveRecords()) if (isAssistantWithUuid(r) && r.messageId !== undefined) table.add(r.messageId, r);
      this.responseTable = table.trim();
    }
    return this.responseTable;
  }
}

/** Rows by time, then file order; `ordinals` holds each row's ordinal at its position. */
interface TimeOrder {
  readonly rows: readonly RecordSummary[];
  readonly ordinals: MinTree;
}

/** The rows the tool-owner and response tables list. */
function isAssistantWithUuid(r: RecordSummary): boolean {
  return r.type === 'assistant' && r.uuid !== undefined;
}

const factsCache = new WeakMap<SessionIndex, Facts>();

function facts(index: SessionIndex): Facts {
  let f = factsCache.get(index);
  if (f === undefined) {
    f = new Facts(index);
    factsCache.set(index, f);
  }
  return f;
}

/**
 * Rows of attempts a person abandoned at a rewind: where one row has two or
 * more typed prompts as children, every prompt's subtree but the newest
 * one's (by time, then file order) is an abandoned attempt. Marks each row
 * of such a subtree with the ordinal of the attempt's first row.
 */
function abandonedAttempts(index: SessionIndex): Int32Array {
  const marks = new Int32Array(index.records.length).fill(-1);
  for (const parent of index.effectiveRecords()) {
    if (parent.uuid === undefined || index.childCountOf(parent) < 2) continue;
    const prompts = index.childrenOf(parent.uuid).filter((c) => isTypedPrompt(c) && !c.isSidechain);
    if (prompts.length < 2) continue;
    const kept = prompts.reduce((best, c) => (c.time > best.time || (!(c.time < best.time) && c.ordinal > best.ordinal) ? c : best));
    for (const attempt of prompts) {
      if (attempt === kept) continue;
      const stack = [attempt];
      while (stack.length > 0) {
        const r = stack.pop() as RecordSummary;
        if (marks[r.ordinal] !== -1) continue;
        marks[r.ordinal] = attempt.ordinal;
        if (r.uuid !== undefined) for (const c of index.childrenOf(r.uuid)) stack.push(c);
      }
    }
  }
  return marks;
}

/** The attempt (its first row's ordinal) a row was abandoned with, or -1. */
export function abandonedAttemptOf(index: SessionIndex, r: RecordSummary): number {
  return facts(index).abandonedRoot[r.ordinal] ?? -1;
}

/** Copies of a repeated uuid that stay distinct records once the later ones are renamed. */
const distinctCopies = new WeakMap<SessionIndex, ReadonlySet<RecordSummary>>();

/** Whether `target` may carry `orphan` as a child. */
export function eligible(index: SessionIndex, orphan: RecordSummary, target: RecordSummary, exclude?: ReadonlySet<RecordSummary>): boolean {
  // A compact boundary is the root of its segment: the first rows after it hang from it.
  if (target === orphan || target.uuid === undefined || !(isConversational(target) || (isCompactBoundary(target) && !target.isSidechain))) return false;
  if (!index.isEffective(target) && distinctCopies.get(index)?.has(target) !== true) return false;
  if (exclude?.has(target) === true) return false;
  if (target.isSidechain !== orphan.isSidechain && isMainChainRow(index, orphan)) return false;
  if (index.segmentOf(target) !== index.segmentOf(orphan)) return false;
  if (index.isAncestor(orphan, target)) return false;
  const attempt = abandonedAttemptOf(index, target);
  if (attempt !== -1 && abandonedAttemptOf(index, orphan) !== attempt) return false;
  return true;
}

/** The latest eligible row written before `r` in file order. */
function previousInFile(index: SessionIndex, r: RecordSummary, exclude?: ReadonlySet<RecordSummary>): RecordSummary | undefined {
  for (let o = r.ordinal - 1; o >= 0; o--) {
    const c = index.records[o] as RecordSummary;
    if (isCompactBoundary(c) && !c.isSidechain && index.segmentOf(c) !== index.segmentOf(r)) return undefined;
    if (eligible(index, r, c, exclude)) return c;
  }
  return undefined;
}

/**
 * The latest eligible row (by time, then file order) written before `r` and
 * at most {@link TIMESTAMP_BRIDGE_MS} older than it.
 */
export function latestWithinWindow(index: SessionIndex, r: RecordSummary, exclude?: ReadonlySet<RecordSummary>): RecordSummary | undefined {
  if (Number.isNaN(r.time)) return undefined;
  const { rows, ordinals } = facts(index).byTime;
  // The window: positions [from, to) of the time order (its lower edge by the very test the scan broke off at).
  const from = firstPosition(rows, (c) => !(r.time - c.time > TIMESTAMP_BRIDGE_MS));
  const to = firstPosition(rows, (c) => c.time > r.time);
  // Rows written after `r` never qualify, and the window can hold most of
  // the file: where many rows share a time (an imported or normalised
  // transcript), each orphan's window holds every row of that time, and a
  // scan that stepped over the later ones one by one cost every orphan the
  // whole run, the file its square. The tree of ordinals jumps straight to
  // the next row written before `r`, in the same order the scan took.
  for (let i = ordinals.lastBelow(from, to, r.ordinal); i !== -1; i = ordinals.lastBelow(from, i, r.ordinal)) {
    const c = rows[i] as RecordSummary;
    if (eligible(index, r, c, exclude)) return c;
  }
  return undefined;
}

/** The row holding the tool call `r`'s tool result answers, written before it. */
function toolCallOf(index: SessionIndex, r: RecordSummary, exclude?: ReadonlySet<RecordSummary>): RecordSummary | undefined {
  if (r.type !== 'user' || r.toolResultIds.length === 0) return undefined;
  const source = r.sourceToolAssistantUuid === undefined ? undefined : index.byUuid.get(r.sourceToolAssistantUuid);
  if (source !== undefined && source.toolUseIds.some((t) => r.toolResultIds.includes(t)) && eligible(index, r, source, exclude)) {
    return source;
  }
  const owners = facts(index).toolOwners;
  let best: RecordSummary | undefined;
  for (const t of r.toolResultIds) {
    for (const owner of owners.get(t)) {
      if (owner.ordinal < r.ordinal && eligible(index, r, owner, exclude) && (best === undefined || owner.ordinal > best.ordinal)) best = owner;
    }
  }
  return best;
}

/** The previous row of the API response `r` continues (same `message.id`). */
function sameResponse(index: SessionIndex, r: RecordSummary, exclude?: ReadonlySet<RecordSummary>): RecordSummary | undefined {
  if (r.type !== 'assistant' || r.messageId === undefined) return undefined;
  let best: RecordSummary | undefined;
  for (const c of facts(index).responses.get(r.messageId)) {
    if (c.ordinal < r.ordinal && c.isSidechain === r.isSidechain && c.agentId === r.agentId && eligible(index, r, c, exclude)) {
      if (best === undefined || c.ordinal > best.ordinal) best = c;
    }
  }
  return best;
}

/**
 * A prompt typed again at a rewind: an earlier prompt with the same text on
 * the path back from `previous`; the row that earlier prompt hangs from.
 */
function rewindPoint(index: SessionIndex, r: RecordSummary, previous: RecordSummary | undefined, exclude?: ReadonlySet<RecordSummary>): RecordSummary | undefined {
  if (!isTypedPrompt(r) || previous === undefined) return undefined;
  const text = r.excerpt.trim();
  const seen = new Set<RecordSummary>();
  let current: RecordSummary | undefined = previous;
  let prompts = 0;
  // The row itself on the path back from its previous row (a reused uuid
  // can hang it below its own previous row): the walk has looped.
  while (current !== undefined && current !== r && !seen.has(current) && prompts < 50) {
    seen.add(current);
    if (isTypedPrompt(current)) {
      prompts++;
      if (current.excerpt.trim() === text) {
        // The first attempt's parent; when that link is broken too, the row
        // its own repair goes to (both prompts hung from the same row).
        const point = index.parentOf(current) ?? (index.hasMissingParent(current) ? relinkTarget(index, current, exclude)?.target : undefined);
        return point !== undefined && eligible(index, r, point, exclude) ? point : undefined;
      }
    }
    current = index.parentOf(current);
  }
  return undefined;
}

/**
 * The row a broken link of `r` should point at, with the reason and the
 * other plausible rows; undefined when no row qualifies (the orphan starts
 * its segment). `exclude` keeps rows out (the members of a cycle).
 */
export function relinkTarget(index: SessionIndex, r: RecordSummary, exclude?: ReadonlySet<RecordSummary>): RelinkChoice | undefined {
  // A rewind point asks for the target of an earlier broken prompt, which
  // (through reused uuids and cycles) can come back to a row being asked
  // for: that row has no target of its own then.
  if (resolving.has(r)) return undefined;
  resolving.add(r);
  try {
    return chooseRelinkTarget(index, r, exclude);
  } finally {
    resolving.delete(r);
  }
}

/** The rows whose {@link relinkTarget} is being worked out, outermost first. */
const resolving = new Set<RecordSummary>();

function chooseRelinkTarget(index: SessionIndex, r: RecordSummary, exclude: ReadonlySet<RecordSummary> | undefined): RelinkChoice | undefined {
  const call = toolCallOf(index, r, exclude);
  if (call !== undefined) return { target: call, reason: 'tool-call', alternatives: [] };
  const response = sameResponse(index, r, exclude);
  if (response !== undefined) return { target: response, reason: 'same-response', alternatives: [] };
  const previous = previousInFile(index, r, exclude);
  const point = rewindPoint(index, r, previous, exclude);
  if (point !== undefined) return { target: point, reason: 'rewind-point', alternatives: previous === undefined ? [] : [previous] };
  const bridged = latestWithinWindow(index, r, exclude);
  if (bridged === undefined) return previous === undefined ? undefined : { target: previous, reason: 'previous', alternatives: [] };
  if (previous === undefined || previous === bridged) return { target: bridged, reason: 'bridge', alternatives: [] };
  // The two disagree. Within the window the file's order says more than the
  // times do: the row written just before `r`, stamped at most 5 s from it
  // on either side, goes first. Claude Code stamps rows a few milliseconds
  // out of the order it writes them (a command's caveat after the command,
  // in corpus captures), and seconds out around an interrupted tool call;
  // the bridge takes the latest stamp and skips the row `r` was written
  // after. A row stamped minutes away is another branch: the bridge first.
  return Math.abs(previous.time - r.time) <= TIMESTAMP_BRIDGE_MS
    ? { target: previous, reason: 'previous', alternatives: [bridged] }
    : { target: bridged, reason: 'bridge', alternatives: [previous] };
}

/** A uuid two different records carry: the later copy's new uuid, and who belongs to it. */
export interface Renamed {
  readonly record: RecordSummary;
  readonly uuid: string;
  /** Rows naming the shared uuid that belong with this copy. */
  readonly children: readonly RecordSummary[];
}

/** Two bodies under one uuid that are the same record written again (same type and parent). */
export function isRewrite(earlier: RecordSummary, later: RecordSummary): boolean {
  return earlier.type === later.type && earlier.parentUuid === later.parentUuid;
}

function rowsByParent(index: SessionIndex): Map<string, RecordSummary[]> {
  const map = new Map<string, RecordSummary[]>();
  for (const r of index.records) {
    if (typeof r.parentUuid !== 'string') continue;
    const list = map.get(r.parentUuid);
    if (list === undefined) map.set(r.parentUuid, [r]);
    else list.push(r);
  }
  return map;
}

/**
 * For each uuid carried by genuinely different records: the later copies
 * with their new uuids and the children that belong with each. `differs`
 * says whether two records of a group have different bodies.
 */
export function renamedCopies(
  index: SessionIndex,
  differs: (a: RecordSummary, b: RecordSummary) => boolean,
): Renamed[] {
  const out: Renamed[] = [];
  // Rows by the parentUuid they name, built once (a scan of every record per repeated uuid is quadratic).
  let byParent: Map<string, RecordSummary[]> | undefined;
  for (const [uuid, group] of index.duplicates) {
    const copies: RecordSummary[] = [group[0] as RecordSummary];
    for (let i = 1; i < group.length; i++) {
      const copy = group[i] as RecordSummary;
      const previous = group[i - 1] as RecordSummary;
      if (copy.recovery !== undefined || !differs(previous, copy) || isRewrite(previous, copy)) continue;
      copies.push(copy);
    }
    if (copies.length < 2) continue;
    const owned = new Map<RecordSummary, RecordSummary[]>(copies.map((c) => [c, []]));
    byParent ??= rowsByParent(index);
    for (const child of byParent.get(uuid) ?? []) {
      if (child.uuid === uuid) continue;
      owned.get(ownerCopy(copies, child))?.push(child);
    }
    for (const copy of copies.slice(1)) {
      out.push({ record: copy, uuid: derivedUuid(uuid, copy.line), children: owned.get(copy) ?? [] });
    }
  }
  return out;
}

/**
 * Which of a uuid's copies a row naming that uuid as parent belongs with.
 * Only copies written before it qualify (a row names a parent that exists
 * when it is written): the one whose call it answers or whose response it
 * continues, else the latest of them (the first copy when none is). So a
 * row of a response written before the copy that continues that response
 * stays with an earlier copy.
 */
function ownerCopy(copies: readonly RecordSummary[], child: RecordSummary): RecordSummary {
  for (const copy of copies) {
    if (copy.ordinal > child.ordinal) continue;
    if (child.toolResultIds.some((t) => copy.toolUseIds.includes(t))) return copy;
    if (child.type === 'assistant' && child.messageId !== undefined && child.messageId === copy.messageId) return copy;
  }
  let best = copies[0] as RecordSummary;
  for (const copy of copies) if (copy.ordinal < child.ordinal && copy.ordinal > best.ordinal) best = copy;
  return best;
}

/**
 * Following parentUuid from these records comes back to them: each cycle
 * with the record whose link is the odd one out (it points forward in the
 * file; when several do, the last such member; when none, the member
 * written last).
 */
export function parentCycles(index: SessionIndex): Array<{ closer: RecordSummary; members: readonly RecordSummary[] }> {
  const out: Array<{ closer: RecordSummary; members: readonly RecordSummary[] }> = [];
  const state = new Uint8Array(index.records.length);
  for (const start of index.effectiveRecords()) {
    if (start.uuid === undefined || state[start.ordinal] !== 0) continue;
    const path: RecordSummary[] = [];
    let current: RecordSummary | undefined = start;
    while (current !== undefined && state[current.ordinal] === 0) {
      state[current.ordinal] = 1;
      path.push(current);
      current = index.parentOf(current);
    }
    if (current !== undefined && state[current.ordinal] === 1) {
      const members = path.slice(path.indexOf(current));
      const forward = members.filter((m) => (index.parentOf(m)?.ordinal ?? -1) > m.ordinal);
      const closer = (forward.length > 0 ? forward : members).reduce((a, b) => (b.ordinal > a.ordinal ? b : a));
      out.push({ closer, members });
    }
    for (const r of path) state[r.ordinal] = 2;
  }
  return out;
}

/** The nearest user or assistant row at or above `r` (through hooks, attachments, progress rows). */
function nearestMessage(index: SessionIndex, r: RecordSummary | undefined): RecordSummary | undefined {
  let current = r;
  for (let steps = 0; current !== undefined && steps < 16; steps++) {
    if (isConversational(current)) return current;
    current = index.parentOf(current);
  }
  return undefined;
}

/** The first row above a run of tool-result rows (through hooks and progress rows), starting at `m`. */
function aboveResults(index: SessionIndex, m: RecordSummary): RecordSummary | undefined {
  let current: RecordSummary | undefined = m;
  for (let steps = 0; current !== undefined && steps < 256; steps++) {
    if (current.type !== 'user' || current.toolResultIds.length === 0) return current;
    current = nearestMessage(index, index.parentOf(current));
  }
  return undefined;
}

/**
 * Whether `owner`, a row without a `message.id` to tell its response by (or
 * `from` without one), is reached from `from` up a run of assistant rows:
 * the rows of one response, written one under the other, as they are when
 * a transcript lost its message ids (a third-party rewrite). A result
 * under the results of that run's later calls is then where Claude Code
 * puts it, and the chain from it passes its call: nothing is skipped, and
 * relinking it to its call would drop the calls and results in between.
 */
function sameTurnAbove(index: SessionIndex, from: RecordSummary, owner: RecordSummary): boolean {
  if (owner.messageId !== undefined && from.messageId !== undefined) return false; // told apart by inResponse
  let current: RecordSummary | undefined = from;
  for (let steps = 0; current !== undefined && current.type === 'assistant' && steps < 256; steps++) {
    if (current === owner) return true;
    current = nearestMessage(index, index.parentOf(current));
  }
  return false;
}

/** Whether `m` belongs to the API response `messageId`: one of its rows, or a row of results answering it. */
function inResponse(index: SessionIndex, m: RecordSummary, messageId: string): boolean {
  if (m.type === 'assistant') return m.messageId === messageId;
  const owners = facts(index).toolOwners;
  return m.toolResultIds.some((t) => owners.get(t).some((o) => o.messageId === messageId));
}

/**
 * A row {@link misplacedParents} found, and what its content says it
 * continues: a tool result its call, a row of a response under way that
 * response, the first row of a response the user row it answers.
 */
export type Misplaced =
  | { readonly record: RecordSummary; readonly continues: 'call' | 'response' }
  | { readonly record: RecordSummary; readonly continues: 'user-row'; readonly answers: RecordSummary };

/**
 * The row a misplaced row goes under: the kind of row its finding says it
 * continues, or none. A target of another kind (the stamps' pick when no
 * row of the response is eligible, say) would be found misplaced again, and
 * the next pass would move the row once more, in turn.
 */
function misplacedTarget(index: SessionIndex, misplaced: Misplaced): RelinkChoice | undefined {
  const { record } = misplaced;
  if (misplaced.continues === 'user-row') {
    return eligible(index, record, misplaced.answers) ? { target: misplaced.answers, reason: 'answered', alternatives: [] } : undefined;
  }
  const parent = index.parentOf(record);
  const choice = relinkTarget(index, record, parent === undefined ? undefined : new Set([parent]));
  const wanted: RelinkReason = misplaced.continues === 'call' ? 'tool-call' : 'same-response';
  return choice?.reason === wanted ? choice : undefined;
}

/**
 * Rows whose content says which row they continue while their parentUuid,
 * which exists, names another (never seen in real sessions; what a wrong
 * write or a hand edit leaves):
 *
 * - a tool result whose parent is not its tool call's row, another row of
 *   that response or a result answering it;
 * - a row of an API response already under way (an earlier row has its
 *   `message.id`) whose parent is neither a row of that response nor a
 *   result answering it, nor the parent of an earlier row of it;
 * - the first row of a response whose parent was written before the user
 *   row it answers (the latest user row before it in the file), unless the
 *   stamps put the row before that user row or its parent after it (rows
 *   moved out of place).
 *
 * Hooks, attachments and progress rows between a row and its parent are
 * looked through. A row whose uuid, or whose parent's, two records share is
 * left to the duplicate's repair.
 */
export function misplacedParents(index: SessionIndex): Misplaced[] {
  const out: Misplaced[] = [];
  const agent = index.file.role === 'subagent' || index.file.role === 'legacy-agent';
  const lastUser = new Int32Array(2).fill(-1);
  // The latest assistant row's message id, per side: main chain, sidechain.
  // A response is under way while no other response has begun since its
  // last row; an id that comes back after another response is a new
  // response reusing it (a row of it is not a stray of the first).
  const latestResponse: Array<string | undefined> = [undefined, undefined];
  for (const r of index.records) {
    const side = r.isSidechain ? 1 : 0;
    const before = lastUser[side] as number;
    if (r.type === 'user') lastUser[side] = r.ordinal;
    const started = r.type === 'assistant' && r.messageId !== undefined && latestResponse[side] === r.messageId;
    if (r.type === 'assistant') latestResponse[side] = r.messageId;
    if (!isConversational(r) || typeof r.parentUuid !== 'string' || (r.isSidechain && !agent)) continue;
    if (r.uuid === undefined || !index.isEffective(r)) continue;
    // A uuid two records share is the cause to repair first (duplicate-uuid).
    if (index.duplicates.has(r.uuid) || index.duplicates.has(r.parentUuid)) continue;
    const parent = index.parentOf(r);
    if (parent === undefined || parent.isSidechain !== r.isSidechain) continue;
    const m = nearestMessage(index, parent);
    if (m === undefined) continue;
    if (r.type === 'user' && r.toolResultIds.length > 0) {
      if (m.type === 'assistant' && m.toolUseIds.some((t) => r.toolResultIds.includes(t))) continue;
      const owners = r.toolResultIds.flatMap((t) => facts(index).toolOwners.get(t));
      // The results of one response's calls come back one under the other:
      // look up through the run of result rows to the row they answer.
      const answered = aboveResults(index, m);
      if (owners.length === 0 || owners.some((o) => [m, answered].some((x) => x !== undefined && (x === o || (o.messageId !== undefined && inResponse(index, x, o.messageId)))))) {
        continue;
      }
      if (answered !== undefined && owners.some((o) => sameTurnAbove(index, answered, o))) continue;
      out.push({ record: r, continues: 'call' });
    } else if (started) {
      // Rows of one response written again under the same parent (a
      // streaming fork, as 2.0.x wrote it) are siblings, not strays.
      const siblings = facts(index).responses.get(r.messageId as string);
      if (inResponse(index, m, r.messageId as string) || siblings.some((o) => o.ordinal < r.ordinal && o.parentUuid === r.parentUuid)) continue;
      out.push({ record: r, continues: 'response' });
    } else if (r.type === 'assistant' && before !== -1 && parent.ordinal < before && !isCompactBoundary(parent)) {
      // Where the stamps say otherwise (the row stamped before that user
      // row, or its parent after it), rows were moved out of place (by hand)
      // rather than linked past what lies between, and a relink by the
      // stamps would only trade one such parent for another.
      const userRow = index.records[before] as RecordSummary;
      if (r.time < userRow.time || parent.time > userRow.time) continue;
      out.push({ record: r, continues: 'user-row', answers: userRow });
    }
  }
  return out;
}

/** A break and where its repair points it. */
export interface LinkRepair {
  readonly record: RecordSummary;
  readonly kind: 'phantom' | 'null' | 'cycle' | 'misplaced';
  readonly choice: RelinkChoice | undefined;
}

/**
 * Every broken link of the file (effective records only) with its repair
 * target, once the `renamed` copies of repeated uuids are told apart.
 */
export function linkRepairs(index: SessionIndex, renamed: readonly Renamed[] = []): LinkRepair[] {
  if (renamed.length > 0) {
    const distinct = new Set<RecordSummary>();
    for (const copy of renamed) {
      distinct.add(copy.record);
      for (const other of index.duplicates.get(copy.record.uuid as string) ?? []) distinct.add(other);
    }
    distinctCopies.set(index, distinct);
  }
  const out: LinkRepair[] = [];
  for (const r of index.effectiveRecords()) {
    if (!index.isChainRow(r)) continue;
    if (index.hasMissingParent(r)) {
      out.push({ record: r, kind: 'phantom', choice: relinkTarget(index, r) });
    } else if (r.parentUuid === null && isMainChainRow(index, r) && expectedRoot(index, r) === undefined) {
      out.push({ record: r, kind: 'null', choice: relinkTarget(index, r) });
    }
  }
  for (const { closer, members } of parentCycles(index)) {
    out.push({ record: closer, kind: 'cycle', choice: relinkTarget(index, closer, new Set(members)) });
  }
  for (const misplaced of misplacedParents(index)) {
    const choice = misplacedTarget(index, misplaced);
    if (choice !== undefined) out.push({ record: misplaced.record, kind: 'misplaced', choice });
  }
  return out;
}
