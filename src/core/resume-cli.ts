/**
 * What `claude --resume` (Claude Code CLI 2.1.330) sends to the model from
 * one file: a model of its loader, checked against the real binary by the
 * differential test in test/oracle-cli.
 *
 * The loader, in the order it works (format.md §3–§8):
 *
 * 1. Every user, assistant, attachment and system row goes into a map by
 *    uuid; a repeated uuid's later body replaces the earlier one at the
 *    earlier position. Rows whose body the CLI cannot use are dropped and
 *    their children hang from the nearest surviving ancestor. A child of a
 *    `progress` row written before it hangs from the progress row's parent.
 * 2. The leaf: the last main-chain row in file order, moved to the newest
 *    descendant when timestamps say a child was written before its parent,
 *    or the newest `last-prompt` checkpoint when the last row does not
 *    descend from it (or when it was written by an explicit rewind with no
 *    row after it); then up to the nearest user or assistant row. A compact
 *    boundary, and an explicit clear, forget the checkpoint before them.
 * 3. The walk back from the leaf. At a parent that is missing, or already
 *    on the chain (a cycle), the CLI looks for a stand-in: the latest row on
 *    the same side (sidechain or not), not yet on the chain, not a file
 *    snapshot, at most 5,000 ms older. With one it carries on; without, the
 *    history before the gap is left out.
 * 4. Rows of an API response the walk did not pass through (one row per
 *    content block) come back by `message.id`, with the tool results that
 *    answer them. Measured on the binary: from any side and any branch.
 * 5. Normalisation before the request: an assistant row whose every
 *    tool_use is answered nowhere on the chain is removed (at the very end
 *    of the history the call gets a synthetic result instead).
 *
 *    Then the rows Claude Code wrote for failed API calls (API-error rows)
 *    are left out. The end of the history is after the last real user turn,
 *    with no later assistant row that says something (thinking alone does
 *    not; an API-error row does) from another response.
 *
 * `messages` are the rows counted as `resume.loaded`: the chain's user and
 * assistant rows that are not meta and not sidechain rows, less trailing
 * rows the request cannot show (a thinking-only or API-error tail).
 */
import { TIMESTAMP_BRIDGE_MS } from './analysis.js';
import { isFileSnapshotRow, type RecordSummary } from './records.js';
import type { SessionIndex } from './session-index.js';
import { firstPosition, ListTable } from './collections.js';


const MAP_TYPES: ReadonlySet<string> = new Set(['user', 'assistant', 'system', 'attachment']);

export type CliWalkEnd =
  | { readonly kind: 'root'; readonly at: RecordSummary }
  | { readonly kind: 'missing-parent'; readonly at: RecordSummary }
  | { readonly kind: 'cycle'; readonly at: RecordSummary }
  | { readonly kind: 'empty' };

/** A place where the walk went on through a stand-in instead of the named parent. */
export interface CliBridge {
  readonly child: RecordSummary;
  readonly standIn: RecordSummary;
  /** The parent was missing, or already on the chain (a cycle). */
  readonly reason: 'missing' | 'visited';
}

export interface CliReading {
  readonly leaf: RecordSummary | undefined;
  /** Rows on the chain with recovered siblings, root first. */
  readonly chain: readonly RecordSummary[];
  /** The counted messages, in chain order. */
  readonly messages: readonly RecordSummary[];
  readonly end: CliWalkEnd;
  readonly bridges: readonly CliBridge[];
  /** The request leaves out a row of the chain for tool calls answered nowhere. */
  readonly dropsUnansweredCalls: boolean;
}

/**
 * The file as a repair would leave it, without writing it: a record's uuid
 * (a later copy of a repeated uuid gets a new one) and its parent link
 * (undefined: as written).
 */
export interface RepairView {
  uuidOf(r: RecordSummary): string | undefined;
  parentOf(r: RecordSummary): string | null | undefined;
}

interface CliGraph {
  readonly index: SessionIndex;
  readonly ids: UuidSpace;
  /** Rows in map order (first occurrence of each uuid), last bodies. */
  readonly ordered: readonly RecordSummary[];
  /** The row kept for a uuid number, if any. */
  body(uuid: number): RecordSummary | undefined;
  /** The number of the uuid a row's link leads to after dropped rows are passed over; -1 for none. */
  parentOf(r: RecordSummary): number;
  /** The body the map holds for the uuid of the last row that counts for the leaf (see buildGraph). */
  readonly lastRow: RecordSummary | undefined;
  /** The same for the row with the greatest timestamp string. */
  readonly newestRow: RecordSummary | undefined;
  /** The number of the newest `last-prompt` checkpoint's uuid; -1 for none (or one no row holds). */
  readonly checkpoint: number;
  /**
   * The newest checkpoint was written by an explicit rewind (`explicit:
   * true`) and no row was written after it: resume goes back there even
   * when the last row descends from it.
   */
  readonly checkpointExplicit: boolean;
  readonly hasCheckpointRow: boolean;
  readonly cleared: boolean;
  readonly trailingSnapshots: number;
}

function isMessage(r: RecordSummary): boolean {
  return r.type === 'user' || r.type === 'assistant';
}

function countsForLeaf(r: RecordSummary): boolean {
  return !r.isSidechain && !isFileSnapshotRow(r) && !(r.type === 'attachment' && r.attachmentType === 'fork_briefing');
}

export interface CliReadOptions {
  /** Read and count records recovered from damaged lines too (for the intended conversation). */
  readonly recoverDamage?: boolean | undefined;
  /** Uuids and parent links as a repair would set them (for the intended conversation). */
  readonly repair?: RepairView | undefined;
  /**
   * Every tool call answered, as a repair that wrote each missing result
   * would leave it: no assistant row is dropped for its unanswered calls
   * (for the intended conversation).
   */
  readonly answerEveryCall?: boolean | undefined;
}

interface Identity {
  uuidOf(r: RecordSummary): string | undefined;
  /** The parent link as written or as repaired: a uuid, or undefined for none. */
  namedParent(r: RecordSummary): string | undefined;
}

function identity(repair: RepairView | undefined): Identity {
  const named = (p: string | null | undefined): string | undefined => (typeof p === 'string' && p !== '' ? p : undefined);
  if (repair === undefined) return { uuidOf: (r) => r.uuid, namedParent: (r) => named(r.parentUuid) };
  return {
    uuidOf: (r) => repair.uuidOf(r),
    namedParent: (r) => {
      const own = repair.parentOf(r);
      return named(own === undefined ? r.parentUuid : own);
    },
  };
}

/**
 * The uuids of one reading as small numbers: every record's own (`own`) and
 * the one its link names (`parent`), by ordinal, -1 for none. Equal uuids
 * get equal numbers. The walks below then keep their marks in typed arrays
 * by number: on a 500,000-record session a map or set keyed by uuid string
 * or by record costs 40-80 bytes an entry, and the CLI's reading built a
 * dozen of them (6.3 s of a 17 s check of a 1 GB session, for its two
 * readings; 1.8 s with the numbers).
 */
interface UuidSpace {
  readonly own: Int32Array;
  readonly parent: Int32Array;
  /** Numbers run from 0 to size - 1. */
  readonly size: number;
  /** The number of a uuid this reading saw; -1 for one it did not. */
  find(uuid: string): number;
}

function uuidSpace(index: SessionIndex, ids: Identity): UuidSpace {
  const { records, byUuid, duplicates } = index;
  const n = records.length;
  // A uuid a record of the file carries is numbered by the ordinal of its
  // first record (the index's own table finds it); any other (a parent no
  // row holds, a repair's new uuid) by a number past the records.
  let others: Map<string, number> | undefined;
  let size = n;
  const find = (uuid: string): number => {
    const holder = byUuid.get(uuid);
    if (holder !== undefined) return duplicates.size === 0 ? holder.ordinal : ((duplicates.get(uuid)?.[0] ?? holder).ordinal);
    return others?.get(uuid) ?? -1;
  };
  const number = (uuid: string | undefined): number => {
    if (uuid === undefined) return -1;
    const found = find(uuid);
    if (found >= 0) return found;
    others ??= new Map();
    others.set(uuid, size);
    return size++;
  };
  const own = new Int32Array(n);
  const parent = new Int32Array(n);
  // Without repeated uuids a record's own number is its ordinal, and a
  // parent link as written leads where the index's parent column says: no
  // lookups by string (two per record and reading cost about a second on
  // 1.5 million records).
  const plain = duplicates.size === 0;
  for (let i = 0; i < n; i++) {
    const r = records[i] as RecordSummary;
    const uuid = ids.uuidOf(r);
    own[i] = plain && uuid !== undefined && uuid === r.uuid ? i : number(uuid);
    const named = ids.namedParent(r);
    const held = plain && named !== undefined && named === r.parentUuid ? index.parentOf(r) : undefined;
    parent[i] = held === undefined ? number(named) : held.ordinal;
  }
  return { own, parent, size, find };
}

/**
 * Records of a damaged line the CLI's parser does not return: Bun's JSONL
 * parser keeps the first of two records glued on one line and skips to the
 * next newline at the error, losing the second; a line with NUL bytes inside
 * is lost whole.
 */
export function lostOnParse(index: SessionIndex, r: RecordSummary): boolean {
  if (r.recovery === 'nul-stripped') return true;
  if (r.recovery !== 'glued-split') return false;
  return r.ordinal > 0 && index.records[r.ordinal - 1]?.line === r.line;
}

/** No entry yet, in the tables by uuid number below (-1 is a link to nothing). */
const UNSET = -2;

function buildGraph(index: SessionIndex, options: CliReadOptions, ids: UuidSpace): CliGraph {
  const { records } = index;
  const n = records.length;
  // By uuid number: the ordinal of the row kept for the uuid; where a
  // progress row's link leads; where a dropped row's link led.
  const bodyOf = new Int32Array(ids.size).fill(-1);
  let progressParent: Int32Array | undefined;
  let dropped: Int32Array | undefined;
  // By ordinal: the link after progress rows are passed over; in the map.
  const resolvedParent = new Int32Array(n).fill(-1);
  const mapped = new Uint8Array(n);
  let lastRow: RecordSummary | undefined;
  let newestRow: RecordSummary | undefined;
  let checkpoint: string | undefined;
  let hasCheckpointRow = false;
  let checkpointExplicit = false;
  let cleared = false;
  let trailingSnapshots = 0;
  const resolveThroughProgress = (p: number): number => {
    if (progressParent === undefined) return p;
    let current = p;
    for (let guard = 0; current >= 0 && guard < 10_000; guard++) {
      const next = progressParent[current] as number;
      if (next === UNSET) return current;
      current = next;
    }
    return current;
  };
  for (const r of records) {
    if (!options.recoverDamage && lostOnParse(index, r)) continue;
    if (r.type === 'last-prompt') {
      if (r.leafUuid === null && r.explicit) {
        // Measured: an explicit clear also forgets the checkpoint before it.
        cleared = true;
        checkpoint = undefined;
        checkpointExplicit = false;
      }
      if (typeof r.leafUuid === 'string') {
        checkpoint = r.leafUuid;
        checkpointExplicit = r.explicit;
        hasCheckpointRow = true;
      }
      continue;
    }
    // Measured: a compaction forgets the checkpoint written before it (that one still counts as written).
    if (isCompaction(r)) {
      checkpoint = undefined;
      checkpointExplicit = false;
    }
    const uuid = ids.own[r.ordinal] as number;
    if (uuid < 0) continue;
    const rawParent = ids.parent[r.ordinal] as number;
    if (r.type === 'progress') {
      progressParent ??= new Int32Array(ids.size).fill(UNSET);
      progressParent[uuid] = resolveThroughProgress(rawParent);
      continue;
    }
    if (!MAP_TYPES.has(r.type)) continue;
    // A parent that is a progress row written earlier reads as that row's parent.
    const parent = resolveThroughProgress(rawParent);
    resolvedParent[r.ordinal] = parent;
    mapped[r.ordinal] = 1;
    if (isMessage(r) && r.bodyMalformed) {
      dropped ??= new Int32Array(ids.size).fill(UNSET);
      dropped[uuid] = parent;
      continue;
    }
    bodyOf[uuid] = r.ordinal;
    if (countsForLeaf(r)) {
      cleared = false;
      checkpointExplicit = false;
      lastRow = r;
      trailingSnapshots = 0;
      if (newestRow === undefined || (r.timestamp ?? '') > (newestRow.timestamp ?? '')) newestRow = r;
    } else if (!r.isSidechain && isFileSnapshotRow(r)) {
      trailingSnapshots++;
    }
  }
  const ordered: RecordSummary[] = [];
  const placed = new Uint8Array(ids.size);
  for (const r of records) {
    const uuid = ids.own[r.ordinal] as number;
    if (uuid < 0 || placed[uuid] === 1 || mapped[r.ordinal] !== 1) continue;
    const body = bodyOf[uuid] as number;
    if (body < 0) continue;
    placed[uuid] = 1;
    ordered.push(records[body] as RecordSummary);
  }
  // A child of a dropped row hangs from the dropped row's nearest surviving ancestor.
  const parentOf = (r: RecordSummary): number => {
    let p = resolvedParent[r.ordinal] as number;
    if (dropped === undefined) return p;
    for (let guard = 0; p >= 0 && dropped[p] !== UNSET && guard < 10_000; guard++) p = dropped[p] as number;
    return p;
  };
  const body = (uuid: number): RecordSummary | undefined => {
    const ordinal = uuid < 0 ? -1 : (bodyOf[uuid] as number);
    return ordinal < 0 ? undefined : records[ordinal];
  };
  return {
    index,
    ids,
    ordered,
    body,
    parentOf,
    // The bookkeeping names uuids: each is the body the map holds now (a
    // later row under the same uuid replaced the row counted; measured: a
    // reply written again as a sidechain row).
    lastRow: lastRow === undefined ? undefined : (body(ids.own[lastRow.ordinal] as number) ?? lastRow),
    newestRow: newestRow === undefined ? undefined : (body(ids.own[newestRow.ordinal] as number) ?? newestRow),
    checkpoint: checkpoint === undefined ? -1 : ids.find(checkpoint),
    checkpointExplicit,
    hasCheckpointRow,
    cleared,
    trailingSnapshots,
  };
}

/** Whether `ancestor` is on the parent chain of `r` (cycle-safe). */
function descends(graph: CliGraph, r: RecordSummary, ancestor: RecordSummary): boolean {
  const seen = new Uint8Array(graph.index.records.length);
  let current: RecordSummary | undefined = r;
  while (current !== undefined && seen[current.ordinal] !== 1) {
    if (current === ancestor) return true;
    seen[current.ordinal] = 1;
    current = graph.body(graph.parentOf(current));
  }
  return false;
}

/**
 * The checkpoint is the result of one call of a response that made several
 * (a parallel fan-out), and the path up from `r` passes a result of another
 * call of that same response: the CLI takes `r` as past the checkpoint
 * (measured; with the calls in two responses it does not).
 */
function passesSameFanOut(graph: CliGraph, r: RecordSummary, checkpoint: RecordSummary): boolean {
  if (checkpoint.toolResultIds.length === 0) return false;
  const responseOfCall = new Map<string, string>();
  for (const row of graph.ordered) {
    if (row.type !== 'assistant' || row.messageId === undefined) continue;
    for (const call of row.toolUseIds) responseOfCall.set(call, row.messageId);
  }
  const responses = new Set<string>();
  for (const call of checkpoint.toolResultIds) {
    const response = responseOfCall.get(call);
    if (response !== undefined) responses.add(response);
  }
  if (responses.size === 0) return false;
  const seen = new Uint8Array(graph.index.records.length);
  let current: RecordSummary | undefined = r;
  while (current !== undefined && seen[current.ordinal] !== 1) {
    seen[current.ordinal] = 1;
    for (const call of current.toolResultIds) {
      const response = responseOfCall.get(call);
      if (response !== undefined && responses.has(response)) return true;
    }
    current = graph.body(graph.parentOf(current));
  }
  return false;
}

function upToMessage(graph: CliGraph, start: RecordSummary | undefined): RecordSummary | undefined {
  const seen = new Set<RecordSummary>();
  let current = start;
  while (current !== undefined && !seen.has(current)) {
    if (isMessage(current)) return current;
    seen.add(current);
    current = graph.body(graph.parentOf(current));
  }
  return undefined;
}

function newestDescendant(graph: CliGraph, from: RecordSummary): RecordSummary {
  const children = new Map<number, RecordSummary[]>();
  for (const r of graph.ordered) {
    const p = graph.parentOf(r);
    if (p < 0) continue;
    const list = children.get(p);
    if (list === undefined) children.set(p, [r]);
    else list.push(r);
  }
  let best = from;
  const seen = new Set<RecordSummary>([from]);
  const stack = [from];
  while (stack.length > 0) {
    const r = stack.pop() as RecordSummary;
    if (countsForLeaf(r) && (r.timestamp ?? '') > (best.timestamp ?? '')) best = r;
    for (const c of children.get(graph.ids.own[r.ordinal] as number) ?? []) {
      if (!seen.has(c)) {
        seen.add(c);
        stack.push(c);
      }
    }
  }
  return best;
}

function chooseLeaf(graph: CliGraph): RecordSummary | undefined {
  if (graph.cleared) return undefined;
  const last = graph.lastRow;
  let candidate = last;
  if (last !== undefined && !graph.hasCheckpointRow && graph.newestRow !== undefined && graph.newestRow !== last) {
    candidate = newestDescendant(graph, last);
  }
  const checkpoint = graph.body(graph.checkpoint);
  if (checkpoint !== undefined && last !== undefined && (graph.checkpointExplicit || !(descends(graph, last, checkpoint) || passesSameFanOut(graph, last, checkpoint)))) {
    candidate = checkpoint;
  }
  // A sidechain row is never the leaf (the body a uuid's last row left can be one).
  const leaf = upToMessage(graph, candidate);
  const usable = leaf?.isSidechain === true ? undefined : leaf;
  if (usable !== undefined && graph.trailingSnapshots === 0) return usable;
  return fallbackLeaf(graph) ?? usable;
}

/** Terminal rows walked up to their nearest message; the latest by timestamp. */
function fallbackLeaf(graph: CliGraph): RecordSummary | undefined {
  const isParent = new Uint8Array(graph.ids.size);
  for (const r of graph.ordered) {
    const p = graph.parentOf(r);
    if (p >= 0) isParent[p] = 1;
  }
  const leaves: RecordSummary[] = [];
  const found = new Set<RecordSummary>();
  for (const r of graph.ordered) {
    if (isParent[graph.ids.own[r.ordinal] as number] === 1) continue;
    const m = upToMessage(graph, r);
    if (m !== undefined && !m.isSidechain && !found.has(m)) {
      found.add(m);
      leaves.push(m);
    }
  }
  if (leaves.length === 0) return undefined;
  return leaves.reduce((best, r) => (r.time > best.time || Number.isNaN(best.time) ? r : best));
}

/** Rows ordered by time, for the stand-in search; built on the first gap. */
class StandIns {
  private rows: RecordSummary[] | undefined;

  constructor(private readonly graph: CliGraph) {}

  find(child: RecordSummary, onChain: (r: RecordSummary) => boolean): RecordSummary | undefined {
    if (Number.isNaN(child.time)) return undefined;
    if (this.rows === undefined) {
      this.rows = this.graph.ordered.filter((r) => !isFileSnapshotRow(r) && !Number.isNaN(r.time));
      // Latest time first; among equal times the first in map order wins
      // (measured: a stand-in and its twin written in the same millisecond).
      this.rows.sort((a, b) => a.time - b.time);
    }
    return standInAmong(this.rows, child, onChain);
  }
}

/**
 * The stand-in for `child` among `rows` (ordered by time, ties in map
 * order): of the rows on its side, not on the chain, at most 5 s older,
 * those of the latest time; of them, the first.
 */
export function standInAmong(rows: readonly RecordSummary[], child: RecordSummary, onChain: (r: RecordSummary) => boolean): RecordSummary | undefined {
  if (Number.isNaN(child.time)) return undefined;
  // One time at a time, latest first; within a time, the first row that
  // qualifies. Where many rows share a time (an imported or normalised
  // transcript) that is nearly always the time's first row, which a scan
  // from the time's last row down reached only after passing over the
  // whole run, for every gap.
  let end = firstPosition(rows, (c) => c.time > child.time);
  while (end > 0) {
    const time = (rows[end - 1] as RecordSummary).time;
    if (child.time - time > TIMESTAMP_BRIDGE_MS) break;
    const start = firstPosition(rows, (c) => c.time >= time, 0, end);
    for (let i = start; i < end; i++) {
      const c = rows[i] as RecordSummary;
      if (c !== child && c.isSidechain === child.isSidechain && !onChain(c)) return c;
    }
    end = start;
  }
  return undefined;
}

function walk(graph: CliGraph, leaf: RecordSummary): { rows: RecordSummary[]; end: CliWalkEnd; bridges: CliBridge[] } {
  const rows: RecordSummary[] = [];
  const onChain = new Uint8Array(graph.index.records.length);
  const isOnChain = (r: RecordSummary): boolean => onChain[r.ordinal] === 1;
  const bridges: CliBridge[] = [];
  const standIns = new StandIns(graph);
  let current = leaf;
  for (;;) {
    rows.push(current);
    onChain[current.ordinal] = 1;
    const p = graph.parentOf(current);
    if (p < 0) return { rows: rows.reverse(), end: { kind: 'root', at: current }, bridges };
    const parent = graph.body(p);
    if (parent !== undefined && !isOnChain(parent)) {
      current = parent;
      continue;
    }
    const standIn = standIns.find(current, isOnChain);
    if (standIn === undefined) {
      const end: CliWalkEnd = parent === undefined ? { kind: 'missing-parent', at: current } : { kind: 'cycle', at: current };
      return { rows: rows.reverse(), end, bridges };
    }
    bridges.push({ child: current, standIn, reason: parent === undefined ? 'missing' : 'visited' });
    current = standIn;
  }
}

/**
 * A full compaction's boundary, the one measured on the binary: a
 * microcompaction trims old tool output and starts nothing, so this is
 * narrower than `isCompactBoundary` (records.ts).
 */
function isCompaction(r: RecordSummary): boolean {
  return r.type === 'system' && r.subtype === 'compact_boundary';
}

/**
 * The chain from its last compact boundary on: the CLI sends what follows a
 * compaction, whether the boundary starts the chain (its parent is null,
 * as Claude Code writes it) or was linked to the history before it
 * (measured on the binary: that history is not sent).
 */
function afterLastCompaction(chain: RecordSummary[]): RecordSummary[] {
  for (let i = chain.length - 1; i > 0; i--) {
    const r = chain[i] as RecordSummary;
    if (isCompaction(r)) return chain.slice(i);
  }
  return chain;
}

/** A flag per record of the index, set for the given rows. */
export function flagsOf(index: SessionIndex, rows: readonly RecordSummary[]): Uint8Array {
  const flags = new Uint8Array(index.records.length);
  for (const r of rows) flags[r.ordinal] = 1;
  return flags;
}

/**
 * Puts back the rows of each API response on the chain that the walk did
 * not pass through, and the tool results that answer them.
 */
function recoverResponses(graph: CliGraph, chain: readonly RecordSummary[]): RecordSummary[] {
  // The last row of each response on the chain: where its other rows go.
  const anchorOf = new Map<string, RecordSummary>();
  for (const r of chain) if (r.type === 'assistant' && r.messageId !== undefined) anchorOf.set(r.messageId, r);
  if (anchorOf.size === 0) return [...chain];
  const onChain = flagsOf(graph.index, chain);
  // Nothing to put back unless some row off the chain is a response's or a
  // tool result: most chains hold every row of the file they could.
  let missing = false;
  let offChainResults = false;
  for (const r of graph.ordered) {
    if (onChain[r.ordinal] === 1) continue;
    if (r.type === 'assistant' && r.messageId !== undefined && anchorOf.has(r.messageId)) missing = true;
    else if (r.type === 'user' && r.toolResultIds.length > 0) offChainResults = true;
  }
  if (!missing && !offChainResults) return [...chain];
  const byId = new ListTable<string, RecordSummary>();
  for (const r of graph.ordered) {
    if (r.type === 'assistant' && r.messageId !== undefined && anchorOf.has(r.messageId)) byId.add(r.messageId, r);
  }
  // Tool results whose call is on the chain but which are not.
  const results: RecordSummary[] = [];
  const calls = new Map<string, RecordSummary>();
  if (offChainResults) {
    for (const id of byId.keys()) for (const r of byId.get(id)) for (const t of r.toolUseIds) calls.set(t, r);
    const answered = new Set<string>();
    for (const r of chain) for (const t of r.toolResultIds) answered.add(t);
    for (const r of graph.ordered) {
      if (onChain[r.ordinal] === 1 || r.type !== 'user' || r.toolResultIds.length === 0) continue;
      if (r.toolResultIds.some((t) => calls.has(t) && !answered.has(t))) results.push(r);
    }
  }
  if (!missing && results.length === 0) return [...chain];
  const inserts = new Map<RecordSummary, RecordSummary[]>();
  const add = (anchor: RecordSummary, r: RecordSummary): void => {
    if (onChain[r.ordinal] === 1) return;
    onChain[r.ordinal] = 1;
    const list = inserts.get(anchor);
    if (list === undefined) inserts.set(anchor, [r]);
    else list.push(r);
  };
  for (const id of byId.keys()) {
    const anchor = anchorOf.get(id) as RecordSummary;
    for (const r of byId.get(id)) add(anchor, r);
  }
  for (const r of results) {
    const call = calls.get(r.toolResultIds.find((t) => calls.has(t)) as string) as RecordSummary;
    add(anchorOf.get(call.messageId as string) as RecordSummary, r);
  }
  const out: RecordSummary[] = [];
  for (const r of chain) {
    out.push(r);
    const added = inserts.get(r);
    if (added !== undefined) out.push(...added);
  }
  return out;
}

/**
 * A row `resume.loaded` counts: a user or assistant line of its own, not
 * meta, not a sidechain row. A record recovered from a damaged line (the
 * first of two glued records, which the CLI's parser does keep) is not a
 * row of the file, and is not counted.
 */
function counted(r: RecordSummary, recovered: boolean): boolean {
  return isMessage(r) && !r.isMeta && !r.isSidechain && (recovered || r.recovery === undefined);
}

/** A user row that a person typed (not tool results, not meta, not a compact summary). */
function isRealTurn(r: RecordSummary): boolean {
  return r.type === 'user' && !r.isMeta && !r.isCompactSummary && !r.blocks.includes('R');
}

/**
 * A row the CLI's merge by `message.id` reaches back over: tool results and
 * attachments. Measured on the binary: a meta user row, a command row or
 * local command output between two rows of one response ends the merge,
 * like a typed prompt.
 */
function passableForMerge(r: RecordSummary): boolean {
  return r.type === 'attachment' || (r.type === 'user' && !r.isMeta && r.blocks.includes('R'));
}

export interface ApiMessage {
  readonly role: 'user' | 'assistant';
  /** The rows whose content makes up the message, in chain order. */
  readonly rows: RecordSummary[];
  readonly messageId: string | undefined;
  /**
   * Assistant rows merged into this message from past a user message (a
   * tool result, a meta row): the CLI's merge by `message.id` reaches back
   * over them, so such a row starts content of another API call. Most
   * messages have none and share one empty list (a chain has hundreds of
   * thousands of messages).
   */
  readonly joinedAcross: readonly RecordSummary[];
}

const NONE_JOINED: readonly RecordSummary[] = Object.freeze([]);

/** A message while {@link requestMessages} builds it. */
type Building = { -readonly [K in keyof ApiMessage]: ApiMessage[K] };

/**
 * The request's messages as the CLI builds them from the chain: an
 * assistant row whose every tool call is answered nowhere on the chain is
 * removed (unless it ends the history), a response's rows are merged by
 * `message.id` across tool results and attachments but not across a real
 * user turn, and adjacent user rows (with attachments and local command
 * output) make one user message (format.md §7–8).
 */
export function requestMessages(chain: readonly RecordSummary[], answerEveryCall = false): ApiMessage[] {
  return messagesOf(requestRows(chain, answerEveryCall).rows);
}

/**
 * The rows of the chain the request carries: rows with calls answered
 * nowhere go first, judged with the API-error rows still there (one after a
 * call ends the history's end there: measured); the API-error rows go next.
 */
function requestRows(chain: readonly RecordSummary[], answerEveryCall: boolean): { rows: readonly RecordSummary[]; droppedForCalls: boolean } {
  const withCalls = answerEveryCall ? chain : chain.filter(keptDespiteCalls(chain));
  const rows = withCalls.some((r) => r.apiError) ? withCalls.filter((r) => !r.apiError) : withCalls;
  return { rows, droppedForCalls: withCalls.length !== chain.length };
}

/** The request's messages from the rows it carries ({@link requestMessages}). */
function messagesOf(kept: readonly RecordSummary[]): ApiMessage[] {
  const messages: Building[] = [];
  // The assistant messages a response's later row can still join, by
  // message id: those after the last user message the merge cannot pass
  // (the latest of each id). What a scan back from the end would find,
  // without one: a long run of tool calls made that scan quadratic.
  const joinable = new Map<string, Building>();
  const userRow = (r: RecordSummary): void => {
    const last = messages[messages.length - 1];
    if (last !== undefined && last.role === 'user') last.rows.push(r);
    else messages.push({ role: 'user', rows: [r], messageId: undefined, joinedAcross: NONE_JOINED });
    if (!passableForMerge(r)) joinable.clear();
  };
  for (const r of kept) {
    if (r.type === 'assistant') {
      const id = r.messageId;
      const m = id === undefined ? undefined : joinable.get(id);
      if (m !== undefined) {
        m.rows.push(r);
        if (m !== messages[messages.length - 1]) m.joinedAcross = [...m.joinedAcross, r];
        continue;
      }
      const last = messages[messages.length - 1];
      if (last !== undefined && last.role === 'assistant' && last.messageId === undefined && id === undefined) last.rows.push(r);
      else {
        const added: Building = { role: 'assistant', rows: [r], messageId: id, joinedAcross: NONE_JOINED };
        messages.push(added);
        if (id !== undefined) joinable.set(id, added);
      }
    } else if (r.type === 'user' || r.type === 'attachment' || (r.type === 'system' && r.subtype === 'local_command')) {
      userRow(r);
    }
  }
  return messages;
}

/**
 * Whether the CLI keeps a row of the chain in its request: every row but an
 * assistant row whose every tool call is answered nowhere on the chain,
 * unless the call is cut off at the end of the history (it gets a synthetic
 * result instead).
 */
function keptDespiteCalls(chain: readonly RecordSummary[]): (r: RecordSummary, i: number) => boolean {
  const answered = new Set<string>();
  for (const r of chain) for (const t of r.toolResultIds) answered.add(t);
  // The end of the history, measured on the binary: after the last real
  // user turn, with no later assistant row that says something (thinking
  // alone does not; an API-error row does) from another response.
  const atEnd = new Uint8Array(chain.length);
  let laterResponse: string | undefined;
  let laterOthers = false;
  for (let i = chain.length - 1; i >= 0; i--) {
    const r = chain[i] as RecordSummary;
    if (isRealTurn(r)) break;
    if (r.type !== 'assistant') continue;
    atEnd[i] = laterOthers || (laterResponse !== undefined && laterResponse !== r.messageId) ? 0 : 1;
    if (!says(r)) continue;
    if (r.messageId === undefined || (laterResponse !== undefined && laterResponse !== r.messageId)) laterOthers = true;
    else laterResponse = r.messageId;
  }
  return (r, i) => {
    if (r.type !== 'assistant' || r.toolUseIds.length === 0) return true;
    if (r.toolUseIds.some((t) => answered.has(t))) return true;
    return atEnd[i] === 1;
  };
}

/** An assistant row with something besides thinking: text, an image, a tool call. */
function says(r: RecordSummary): boolean {
  for (const kind of r.blocks) if (kind === 't' || kind === 'i' || kind === 'u' || kind === 's') return true;
  return false;
}

/**
 * The rows whose content reaches the request, after the CLI's
 * normalisation of {@link requestMessages}: tool blocks that lost their
 * partner are dropped, and a response left with nothing but thinking is
 * not sent. A flag per record of the index.
 */
function sentRows(index: SessionIndex, messages: readonly ApiMessage[]): Uint8Array {
  // A response left with nothing but thinking is sent after all when its
  // message.id has another message of the chain (a real turn between them
  // kept the two apart): measured at either end of the history.
  const messagesById = new Map<string, number>();
  for (const m of messages) if (m.role === 'assistant' && m.messageId !== undefined) messagesById.set(m.messageId, (messagesById.get(m.messageId) ?? 0) + 1);
  const sent = new Uint8Array(index.records.length);
  const seenCalls = new Set<string>();
  // The calls of the assistant message just read, answered or not yet (most
  // messages make one call or none: a list, reused, not a set per message).
  const previousCalls: string[] = [];
  const showing: RecordSummary[] = [];
  for (const m of messages) {
    if (m.role === 'assistant') {
      previousCalls.length = 0;
      showing.length = 0;
      let substance = false;
      for (const r of m.rows) {
        let shows = false;
        let call = 0;
        for (const kind of r.blocks) {
          if (kind === 'u') {
            const id = r.toolUseIds[call++];
            if (id === undefined || seenCalls.has(id)) continue;
            seenCalls.add(id);
            previousCalls.push(id);
            shows = true;
            substance = true;
          } else if (kind === 't' || kind === 'i' || kind === 's') {
            shows = true;
            substance = true;
          } else if (kind === 'k' || kind === 'r') {
            shows = true;
          }
        }
        if (shows) showing.push(r);
      }
      // A response left with nothing but thinking is not sent, unless its id has another message.
      if (substance || (m.messageId !== undefined && (messagesById.get(m.messageId) ?? 0) > 1)) for (const r of showing) sent[r.ordinal] = 1;
    } else {
      for (const r of m.rows) {
        if (r.type !== 'user') continue;
        let shows = r.blocks.includes('t') || r.blocks.includes('i') || r.blocks.includes('d');
        for (const t of r.toolResultIds) {
          // Each call is answered once: the first result for it shows.
          const at = previousCalls.indexOf(t);
          if (at !== -1) {
            shows = true;
            previousCalls[at] = previousCalls[previousCalls.length - 1] as string;
            previousCalls.pop();
          }
        }
        if (shows) sent[r.ordinal] = 1;
      }
      previousCalls.length = 0;
    }
  }
  return sent;
}

/**
 * No text and no image, or an API-error row (left out of the request): a
 * row the request could carry without a trace one could map back, counted
 * where it lies between two rows that were sent (as the CLI oracle counts).
 */
function traceless(r: RecordSummary): boolean {
  return r.apiError || (!r.blocks.includes('t') && !r.blocks.includes('i'));
}

/**
 * The counted messages: rows whose content is sent, and rows the request
 * cannot show (thinking, tool blocks the CLI dropped) lying on the parent
 * chain between two sent rows.
 */
function countedMessages(
  index: SessionIndex,
  chain: readonly RecordSummary[],
  sent: Uint8Array,
  ids: UuidSpace,
  recovered: boolean,
): RecordSummary[] {
  const sentUuids = new Uint8Array(ids.size);
  for (const r of chain) if (sent[r.ordinal] === 1) sentUuids[ids.own[r.ordinal] as number] = 1;
  // By uuid number: the link of the first row with the uuid, and the first message row's ordinal.
  const firstParent = new Int32Array(ids.size).fill(UNSET);
  const firstRow = new Int32Array(ids.size).fill(-1);
  for (const r of index.records) {
    const uuid = ids.own[r.ordinal] as number;
    if (uuid < 0 || (!recovered && r.recovery !== undefined)) continue;
    if (firstParent[uuid] === UNSET) firstParent[uuid] = ids.parent[r.ordinal] as number;
    if (isMessage(r) && firstRow[uuid] === -1) firstRow[uuid] = r.ordinal;
  }
  // Up from each sent row to the next sent row: the rows between are filled in.
  const filled = new Uint8Array(ids.size);
  const GUARD = 100_000;
  for (let uuid = 0; uuid < ids.size; uuid++) {
    if (sentUuids[uuid] !== 1) continue;
    let p = firstParent[uuid] as number;
    for (let guard = 0; p >= 0 && sentUuids[p] !== 1 && guard < GUARD; guard++) p = firstParent[p] as number;
    if (p < 0 || sentUuids[p] !== 1) continue;
    p = firstParent[uuid] as number;
    for (let guard = 0; p >= 0 && sentUuids[p] !== 1 && guard < GUARD; guard++) {
      const row = firstRow[p] as number;
      if (row >= 0 && traceless(index.records[row] as RecordSummary)) filled[p] = 1;
      p = firstParent[p] as number;
    }
  }
  const out: RecordSummary[] = [];
  const seen = new Uint8Array(ids.size);
  for (const r of chain) {
    const uuid = ids.own[r.ordinal] as number;
    if (!counted(r, recovered) || seen[uuid] === 1 || !(sent[r.ordinal] === 1 || filled[uuid] === 1)) continue;
    seen[uuid] = 1;
    out.push(r);
  }
  return out;
}

export function readAsCli(index: SessionIndex, options: CliReadOptions = {}): CliReading {
  // A file of bookkeeping rows only (queue operations, say) has no chain
  // to read, and its tables by ordinal would be all it cost.
  if (index.byUuid.size === 0) return { leaf: undefined, chain: [], messages: [], end: { kind: 'empty' }, bridges: [], dropsUnansweredCalls: false };
  const ids = uuidSpace(index, identity(options.repair));
  const graph = buildGraph(index, options, ids);
  const leaf = chooseLeaf(graph);
  if (leaf === undefined) return { leaf, chain: [], messages: [], end: { kind: 'empty' }, bridges: [], dropsUnansweredCalls: false };
  const walked = walk(graph, leaf);
  const chain = afterLastCompaction(recoverResponses(graph, walked.rows));
  const request = requestRows(chain, options.answerEveryCall === true);
  const messages = countedMessages(index, chain, sentRows(index, messagesOf(request.rows)), ids, options.recoverDamage === true);
  return { leaf, chain, messages, end: walked.end, bridges: walked.bridges, dropsUnansweredCalls: request.droppedForCalls };
}

/**
 * The stand-in the CLI's walk would take for a row whose parent is missing,
 * were the walk to reach it: the latest row on the same side at most 5 s
 * older, not one of the row's own descendants.
 */
export function standInFinder(index: SessionIndex): (r: RecordSummary) => RecordSummary | undefined {
  let standIns: StandIns | undefined;
  return (r) => {
    standIns ??= new StandIns(buildGraph(index, {}, uuidSpace(index, identity(undefined))));
    return standIns.find(r, (c) => index.isAncestor(r, c));
  };
}
