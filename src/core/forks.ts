/**
 * Why a record has several children. Most forks in a transcript are
 * mechanical, written by Claude Code itself and harmless; only the residual,
 * a person rewinding and typing something else, is a real branch of the
 * conversation (peers.md §3 "Legitimate shapes"; claude-code-log's
 * linearisation ladder). Branches resume does not load are "abandoned",
 * reported with their depth so a person can judge what was left behind.
 */
import type { RecordSummary } from './records.js';
import type { ResumeModel } from './resume.js';
import type { SessionIndex } from './session-index.js';

export type ForkKind =
  /** An assistant turn with tool calls: results and the continuation hang off it. */
  | 'tool-fanout'
  /** Rows of one API response (same message.id), one content block each. */
  | 'streaming'
  /** Hook or tool progress rows beside the real child. */
  | 'progress'
  /** Compaction re-wrote the same messages: siblings with identical timestamps. */
  | 'compaction-replay'
  /** The residual: the person went back and continued differently. */
  | 'rewind';

export interface Fork {
  readonly parent: RecordSummary;
  readonly kind: ForkKind;
  readonly children: readonly RecordSummary[];
}

export interface AbandonedBranch {
  /** The first record of the branch (a child at a rewind). */
  readonly root: RecordSummary;
  /** Records on the longest path down the branch. */
  readonly depth: number;
  /** Records in the branch. */
  readonly records: number;
}

export interface ForkReport {
  readonly forks: readonly Fork[];
  readonly counts: Readonly<Record<ForkKind, number>>;
  readonly abandoned: readonly AbandonedBranch[];
}

function isToolResult(r: RecordSummary): boolean {
  return r.type === 'user' && r.toolResultIds.length > 0;
}

/** Classifies the children of one record. */
export function classifyFork(parent: RecordSummary, children: readonly RecordSummary[]): ForkKind {
  const real = children.filter((c) => c.type !== 'progress');
  if (real.length <= 1) return 'progress';
  const stamps = new Set(real.map((c) => c.timestamp));
  if (stamps.size < real.length) return 'compaction-replay';
  const calledTools = parent.type === 'assistant' && parent.toolUseIds.length > 0;
  const mechanical = (c: RecordSummary): boolean =>
    isToolResult(c) ||
    c.type === 'system' ||
    c.type === 'attachment' ||
    (c.type === 'assistant' &&
      (calledTools ||
        (c.messageId !== undefined && (c.messageId === parent.messageId || real.some((o) => o !== c && o.messageId === c.messageId)))));
  if (real.every(mechanical)) return calledTools || real.some(isToolResult) ? 'tool-fanout' : 'streaming';
  return 'rewind';
}

/** Every fork of the file, and the branches resume leaves behind at rewinds. */
export function forkReport(index: SessionIndex, resume: ResumeModel): ForkReport {
  const counts: Record<ForkKind, number> = { 'tool-fanout': 0, streaming: 0, progress: 0, 'compaction-replay': 0, rewind: 0 };
  const forks: Fork[] = [];
  const abandoned: AbandonedBranch[] = [];
  let sizes: SubtreeSizes | null | undefined; // null: the graph has a cycle, measure each branch by walking it
  for (const parent of index.effectiveRecords()) {
    if (parent.uuid === undefined || !index.isChainRow(parent) || index.childCountOf(parent) < 2) continue;
    const children = index.childrenOf(parent.uuid);
    const kind = classifyFork(parent, children);
    counts[kind]++;
    forks.push({ parent, kind, children });
    if (kind !== 'rewind') continue;
    for (const child of children) {
      if (child.type === 'progress' || resume.onChain(child) || subtreeTouches(index, child, resume)) continue;
      if (sizes === undefined) sizes = subtreeSizes(index) ?? null;
      abandoned.push({
        root: child,
        ...(sizes === null ? measure(index, child) : { depth: sizes.depth[child.ordinal] as number, records: sizes.records[child.ordinal] as number }),
      });
    }
  }
  return { forks, counts, abandoned };
}

/** Whether the resumed chain passes through the subtree under `root`. */
function subtreeTouches(index: SessionIndex, root: RecordSummary, resume: ResumeModel): boolean {
  return resume.leaf !== undefined && index.isAncestor(root, resume.leaf);
}

/** Records under each record (itself included) and the longest path down from it, by ordinal. */
interface SubtreeSizes {
  readonly records: Int32Array;
  readonly depth: Int32Array;
}

/**
 * {@link measure} of every record at once, children before parents, or
 * undefined when a parent cycle makes the child relation no tree. Measuring
 * each abandoned branch by walking it cost the branches' sizes summed: when
 * a break cuts a long conversation off, every rewind in the part cut off
 * has abandoned branches reaching to its end (a 1 GB session: 6 s of a 17 s
 * check).
 */
function subtreeSizes(index: SessionIndex): SubtreeSizes | undefined {
  const n = index.records.length;
  const records = new Int32Array(n);
  const depth = new Int32Array(n);
  const state = new Uint8Array(n); // 0 not seen, 1 open (on the walk's path), 2 measured
  const childrenOf = (r: RecordSummary): readonly RecordSummary[] => (r.uuid === undefined ? [] : index.childrenOf(r.uuid));
  for (const start of index.effectiveRecords()) {
    if (state[start.ordinal] !== 0) continue;
    const stack: RecordSummary[] = [start];
    while (stack.length > 0) {
      const r = stack[stack.length - 1] as RecordSummary;
      const o = r.ordinal;
      if (state[o] === 0) {
        state[o] = 1;
        for (const c of childrenOf(r)) {
          if (state[c.ordinal] === 1) return undefined; // a cycle
          if (state[c.ordinal] === 0) stack.push(c);
        }
        continue;
      }
      stack.pop();
      if (state[o] === 2) continue;
      let count = 1;
      let deepest = 0;
      for (const c of childrenOf(r)) {
        count += records[c.ordinal] as number;
        deepest = Math.max(deepest, depth[c.ordinal] as number);
      }
      records[o] = count;
      depth[o] = deepest + 1;
      state[o] = 2;
    }
  }
  return { records, depth };
}

/** The records under `root` (itself included) and the longest path down, walked record by record: what {@link subtreeSizes} gives for every record at once. */
function measure(index: SessionIndex, root: RecordSummary): { depth: number; records: number } {
  let records = 0;
  let depth = 0;
  const stack: Array<{ r: RecordSummary; d: number }> = [{ r: root, d: 1 }];
  const seen = new Set<RecordSummary>();
  while (stack.length > 0) {
    const { r, d } = stack.pop() as { r: RecordSummary; d: number };
    if (seen.has(r)) continue;
    seen.add(r);
    records++;
    depth = Math.max(depth, d);
    if (r.uuid !== undefined) for (const c of index.childrenOf(r.uuid)) stack.push({ r: c, d: d + 1 });
  }
  return { depth, records };
}
