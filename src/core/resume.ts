/**
 * A model of what `claude --resume` loads from one file (format.md §5–§6):
 * the leaf it picks, the chain it walks back from that leaf, where that walk
 * stops, and which messages come back. The same walk with every break
 * bridged gives the conversation a correct repair would bring back; the
 * ratio of the two is the file's resume fidelity.
 *
 * It runs on the index's record summaries only and is computed once per
 * index, lazily, because most rules never need it.
 */
import {
  type ExpectedRoot,
  bridgeTarget,
  expectedRoot,
  isAgentFile,
  isMainChainRow,
  TIMESTAMP_BRIDGE_MS,
} from './analysis.js';
import { type RecordSummary, isCompactBoundary, isFileSnapshotRow } from './records.js';
import type { SessionIndex } from './session-index.js';

/** Why the walk back from the leaf ended. */
export type WalkEnd =
  | { readonly kind: 'root'; readonly at: RecordSummary; readonly expected: ExpectedRoot | undefined }
  | { readonly kind: 'missing-parent'; readonly at: RecordSummary }
  | { readonly kind: 'cycle'; readonly at: RecordSummary }
  | { readonly kind: 'empty' };

export interface ResumeModel {
  /** The message resume continues from; undefined when nothing loads. */
  readonly leaf: RecordSummary | undefined;
  /** Chain rows resume loads, root first. */
  readonly chain: readonly RecordSummary[];
  /** The messages resume brings back (what the official reader returns). */
  readonly messages: readonly RecordSummary[];
  /** The messages a correct repair would bring back: every break bridged. */
  readonly intendedMessages: readonly RecordSummary[];
  readonly end: WalkEnd;
  readonly loaded: number;
  readonly total: number;
  readonly fidelity: number;
  /** The walk passed this record's missing parent through the 5 s stand-in. */
  bridged(record: RecordSummary): boolean;
  /** The record is on the loaded chain. */
  onChain(record: RecordSummary): boolean;
  /** The stand-in parent the 5 s rule would pick for a record, ignoring the chain. */
  standIn(record: RecordSummary): RecordSummary | undefined;
}

const cache = new WeakMap<SessionIndex, ResumeModel>();

export function resumeModel(index: SessionIndex): ResumeModel {
  let model = cache.get(index);
  if (model === undefined) {
    model = buildModel(index);
    cache.set(index, model);
  }
  return model;
}

function isMessage(r: RecordSummary): boolean {
  return r.type === 'user' || r.type === 'assistant';
}

/** Chain rows sorted by time, for the stand-in search. */
function timeOrder(index: SessionIndex): RecordSummary[] {
  const rows: RecordSummary[] = [];
  for (const r of index.effectiveRecords()) {
    if (index.isChainRow(r) && !isFileSnapshotRow(r) && !Number.isNaN(r.time)) rows.push(r);
  }
  rows.sort((a, b) => a.time - b.time || a.ordinal - b.ordinal);
  return rows;
}

function chooseLeaf(index: SessionIndex): RecordSummary | undefined {
  let lastRow: RecordSummary | undefined;
  let newestRow: RecordSummary | undefined;
  let checkpoint: string | null | undefined;
  let checkpointExplicit = false;
  let checkpointOrdinal = -1;
  let hasLeafCheckpoint = false;
  for (const r of index.records) {
    if (r.type === 'last-prompt' && r.leafUuid !== undefined) {
      checkpoint = r.leafUuid;
      checkpointExplicit = r.explicit;
      checkpointOrdinal = r.ordinal;
      if (r.leafUuid !== null) hasLeafCheckpoint = true;
      continue;
    }
    if (!index.isChainRow(r) || !isMainChainRow(index, r) || index.byUuid.get(r.uuid as string) !== r) continue;
    if (r.type === 'attachment' && r.subtype === 'fork_briefing') continue;
    lastRow = r;
    if (newestRow === undefined || (r.timestamp ?? '') > (newestRow.timestamp ?? '')) newestRow = r;
  }
  if (lastRow === undefined) return undefined;
  if (checkpoint === null && checkpointExplicit && checkpointOrdinal > lastRow.ordinal) return undefined;

  let candidate: RecordSummary = lastRow;
  if (!hasLeafCheckpoint && newestRow !== undefined && newestRow !== lastRow) {
    // Children written before their parents: prefer the newest descendant.
    let best = lastRow;
    const stack = [lastRow];
    while (stack.length > 0) {
      const r = stack.pop() as RecordSummary;
      if ((r.timestamp ?? '') > (best.timestamp ?? '') && isMainChainRow(index, r)) best = r;
      if (r.uuid !== undefined) for (const c of index.childrenOf(r.uuid)) if (c !== r) stack.push(c);
      if (stack.length > index.records.length) break;
    }
    candidate = best;
  }
  if (typeof checkpoint === 'string') {
    const pinned = index.byUuid.get(checkpoint);
    if (pinned !== undefined && index.isChainRow(pinned) && !index.isAncestor(pinned, lastRow)) candidate = pinned;
  }
  // Walk up to the first user or assistant row: that is the leaf.
  const seen = new Set<RecordSummary>();
  let r: RecordSummary | undefined = candidate;
  while (r !== undefined && !isMessage(r) && !seen.has(r)) {
    seen.add(r);
    r = index.parentOf(r);
  }
  return r !== undefined && isMessage(r) ? r : undefined;
}

interface Walk {
  readonly chain: RecordSummary[];
  readonly end: WalkEnd;
  readonly bridged: Set<RecordSummary>;
}

function walk(
  index: SessionIndex,
  leaf: RecordSummary,
  standIn: (r: RecordSummary, visited: Set<RecordSummary>) => RecordSummary | undefined,
  repairBreaks: boolean,
): Walk {
  const chain: RecordSummary[] = [];
  const visited = new Set<RecordSummary>();
  const bridged = new Set<RecordSummary>();
  let current: RecordSummary = leaf;
  for (;;) {
    chain.push(current);
    visited.add(current);
    let parentId = current.parentUuid;
    if (parentId === null || parentId === undefined) {
      const expected = expectedRoot(index, current);
      if (repairBreaks && expected === undefined && parentId === null) {
        const target = bridgeTarget(index, current);
        if (target !== undefined && !visited.has(target)) {
          current = target;
          continue;
        }
      }
      return { chain, end: { kind: 'root', at: current, expected }, bridged };
    }
    // Progress rows are not stored: a child of one hangs off its ancestor.
    let hops = 0;
    let parent = index.byUuid.get(parentId);
    while (parent !== undefined && parent.type === 'progress' && parent.ordinal < current.ordinal && hops++ < 10_000) {
      parentId = parent.parentUuid;
      if (parentId === null || parentId === undefined) return { chain, end: { kind: 'root', at: current, expected: 'first-record' }, bridged };
      parent = index.byUuid.get(parentId);
    }
    if (parent !== undefined && parent.type === 'progress') parent = undefined;
    if (parent !== undefined && !index.isChainRow(parent)) parent = undefined;
    if (parent !== undefined && !visited.has(parent)) {
      current = parent;
      continue;
    }
    const cycle = parent !== undefined;
    const substitute = standIn(current, visited);
    if (substitute !== undefined) {
      bridged.add(current);
      current = substitute;
      continue;
    }
    if (repairBreaks && !cycle) {
      const target = bridgeTarget(index, current);
      if (target !== undefined && !visited.has(target)) {
        current = target;
        continue;
      }
    }
    return { chain, end: { kind: cycle ? 'cycle' : 'missing-parent', at: current }, bridged };
  }
}

function buildModel(index: SessionIndex): ResumeModel {
  const byTime = timeOrder(index);
  const times = byTime.map((r) => r.time);
  const upperBound = (t: number): number => {
    let lo = 0;
    let hi = times.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((times[mid] as number) <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const standIn = (r: RecordSummary, visited: ReadonlySet<RecordSummary>): RecordSummary | undefined => {
    if (Number.isNaN(r.time)) return undefined;
    for (let i = upperBound(r.time) - 1; i >= 0; i--) {
      const c = byTime[i] as RecordSummary;
      if (r.time - c.time > TIMESTAMP_BRIDGE_MS) break;
      if (c === r || visited.has(c) || c.isSidechain !== r.isSidechain) continue;
      return c;
    }
    return undefined;
  };

  const leaf = isAgentFile(index) ? undefined : chooseLeaf(index);
  const empty: Walk = { chain: [], end: { kind: 'empty' }, bridged: new Set() };
  const actual = leaf === undefined ? empty : walk(index, leaf, standIn, false);
  const intended = leaf === undefined ? empty : walk(index, leaf, standIn, true);
  const chainSet = new Set(actual.chain);
  const messages = toMessages(actual.chain);
  const intendedMessages = toMessages(intended.chain);
  const loaded = messages.length;
  const total = Math.max(intendedMessages.length, loaded);
  return {
    leaf,
    chain: [...actual.chain].reverse(),
    messages,
    intendedMessages,
    end: actual.end,
    loaded,
    total,
    fidelity: total === 0 ? 1 : loaded / total,
    bridged: (r) => actual.bridged.has(r),
    onChain: (r) => chainSet.has(r),
    standIn: (r) => standIn(r, new Set([r])),
  };
}

/** Root-first messages from a leaf-first chain. */
function toMessages(chainLeafFirst: readonly RecordSummary[]): RecordSummary[] {
  const out: RecordSummary[] = [];
  for (let i = chainLeafFirst.length - 1; i >= 0; i--) {
    const r = chainLeafFirst[i] as RecordSummary;
    if (isMessage(r) && !isCompactBoundary(r)) out.push(r);
  }
  return out;
}
