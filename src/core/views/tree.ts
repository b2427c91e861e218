/**
 * The tree view model: the session's records as a `git log --graph`-style
 * tree, oldest first (read top to bottom like the conversation).
 *
 * - Rows are the chain records (user, assistant, system, attachment);
 *   progress and metadata records are skipped, and a parent link through a
 *   progress record is followed to the shown record above it.
 * - `*` a record on the chain `claude --resume` loads (the main thread),
 *   `o` any other record, `!` the first record of an orphaned branch (a root
 *   `expectedRoot` does not accept, or a record whose parent is missing)
 *   with its {@link branchScore}, `=` a compact boundary, drawn under the
 *   record it logically follows (`logicalParentUuid`).
 * - A record with several children opens a fork: `|\` and the side branch
 *   one column to the right, shown in full before the line that goes on
 *   (the one leading to the resumed leaf, else the one that lasted longest)
 *   continues in the original column. It is `git log --graph` mirrored
 *   top to bottom, so forks open with `|\` rather than close with `|/`.
 * - Linear runs of more than 8 records are collapsed to `… N more` unless
 *   `--all`.
 *
 * Built here once; the terminal graph (src/formatters/tree.ts) and the HTML
 * report's SVG draw the same lines.
 */
import { expectedRoot } from '../analysis.js';
import { type ForkKind, classifyFork } from '../forks.js';
import { type RecordSummary, isCompactBoundary } from '../records.js';
import type { ResumeModel } from '../resume.js';
import { branchScore } from '../score.js';
import type { SessionIndex } from '../session-index.js';
import { subagentChain } from './conversation.js';

export type Glyph = '*' | 'o' | '!' | '=';

export interface TreeNode {
  readonly record: RecordSummary;
  readonly glyph: Glyph;
  /** Set on the first record of an orphaned branch. */
  readonly orphan?: {
    readonly reason: string;
    readonly score: number;
    /**
     * What resume loses to this break: for a branch resume starts in, the
     * intended messages before it that it leaves out; for any other, the
     * branch's own messages (the record and what hangs under it).
     */
    readonly lost: number;
    /** Resume starts in this branch and leaves the earlier history out. */
    readonly cutsHistory: boolean;
  } | undefined;
}

export type TreeLine =
  | { readonly kind: 'record'; readonly depth: number; readonly node: TreeNode }
  /** `|\`: the record above forks; a side branch opens in column depth + 1. */
  | { readonly kind: 'fork'; readonly depth: number; readonly label?: ForkKind | undefined }
  | { readonly kind: 'more'; readonly depth: number; readonly count: number };

export interface SessionTree {
  readonly lines: readonly TreeLine[];
  readonly records: number;
  readonly forks: number;
  readonly orphans: number;
  readonly maxDepth: number;
  /**
   * The file holds only a subagent's conversation, which resume does not
   * load: `*` marks its own thread, the messages `show` lists for it.
   */
  readonly subagent: boolean;
}

/** Rows in a linear run beyond which the middle is collapsed. */
export const COLLAPSE_OVER = 8;
/** Rows kept at each end of a collapsed run. */
const KEEP_EACH_END = 3;

type ParentLink =
  | { readonly kind: 'shown'; readonly parent: RecordSummary }
  | { readonly kind: 'null' }
  | { readonly kind: 'missing'; readonly uuid: string }
  | { readonly kind: 'external' };

/** The shown record a record hangs under, following parent links through hidden (progress) records. */
function parentLink(index: SessionIndex, r: RecordSummary, shown: ReadonlySet<RecordSummary>): ParentLink {
  if (isCompactBoundary(r) && r.parentUuid === null && r.logicalParentUuid !== undefined) {
    const logical = index.byUuid.get(r.logicalParentUuid);
    if (logical !== undefined && shown.has(logical)) return { kind: 'shown', parent: logical };
  }
  const seen = new Set<string>();
  let p = r.parentUuid;
  while (typeof p === 'string') {
    if (seen.has(p)) return { kind: 'null' };
    seen.add(p);
    const parent = index.byUuid.get(p);
    if (parent === undefined) return index.externalParent(p) !== undefined ? { kind: 'external' } : { kind: 'missing', uuid: p };
    if (shown.has(parent)) return { kind: 'shown', parent };
    p = parent.parentUuid;
  }
  return { kind: 'null' };
}

/** Lays the session out as lines of a graph (pure: no I/O, no colour). */
export function buildTree(index: SessionIndex, resume: ResumeModel, options: { readonly all: boolean }): SessionTree {
  const shown: RecordSummary[] = [];
  for (const r of index.effectiveRecords()) if (index.isChainRow(r)) shown.push(r);
  const shownSet = new Set(shown);
  const children = new Map<RecordSummary, RecordSummary[]>();
  const links = new Map<RecordSummary, ParentLink>();
  for (const r of shown) {
    const link = parentLink(index, r, shownSet);
    links.set(r, link);
    if (link.kind !== 'shown') continue;
    const list = children.get(link.parent);
    if (list === undefined) children.set(link.parent, [r]);
    else list.push(r);
  }
  const kidsOf = (r: RecordSummary): readonly RecordSummary[] => children.get(r) ?? [];

  // The line that leads to the resumed leaf stays in its column at every fork.
  const towardLeaf = new Set<RecordSummary>();
  // A subagent's transcript is never resumed: its own thread takes the place
  // of the resumed chain, as in `show`.
  const thread = subagentChain(index);
  const threadSet = thread === undefined ? undefined : new Set(thread);
  const onMainLine = (r: RecordSummary): boolean => (threadSet === undefined ? resume.onChain(r) : threadSet.has(r));
  const leafOf = thread === undefined ? resume.leaf : thread[thread.length - 1];
  const leaf = leafOf?.uuid === undefined ? undefined : index.byUuid.get(leafOf.uuid);
  for (let r: RecordSummary | undefined = leaf; r !== undefined && !towardLeaf.has(r); ) {
    towardLeaf.add(r);
    const link = links.get(r);
    r = link?.kind === 'shown' ? link.parent : undefined;
  }
  // Latest ordinal in each subtree: the longest-lived line continues otherwise.
  const latest = new Map<RecordSummary, number>();
  const latestOf = (root: RecordSummary): number => {
    const order: RecordSummary[] = [];
    const stack = [root];
    const seen = new Set<RecordSummary>();
    while (stack.length > 0) {
      const r = stack.pop() as RecordSummary;
      if (seen.has(r) || latest.has(r)) continue;
      seen.add(r);
      order.push(r);
      for (const k of kidsOf(r)) stack.push(k);
    }
    for (let i = order.length - 1; i >= 0; i--) {
      const r = order[i] as RecordSummary;
      let max = r.ordinal;
      for (const k of kidsOf(r)) max = Math.max(max, latest.get(k) ?? k.ordinal);
      latest.set(r, max);
    }
    return latest.get(root) ?? root.ordinal;
  };

  const loadedSet = new Set(resume.messages);
  const historyLoss = (): number => resume.intendedMessages.filter((m) => !loadedSet.has(m)).length;
  const branchLoss = (root: RecordSummary): number => {
    let lost = 0;
    const stack = [root];
    const seen = new Set<RecordSummary>();
    while (stack.length > 0) {
      const r = stack.pop() as RecordSummary;
      if (seen.has(r)) continue;
      seen.add(r);
      if ((r.type === 'user' || r.type === 'assistant') && !r.isMeta && !r.isSidechain && !loadedSet.has(r)) lost++;
      for (const k of kidsOf(r)) stack.push(k);
    }
    return lost;
  };
  const nodeOf = (r: RecordSummary, orphan: TreeNode['orphan']): TreeNode => ({
    record: r,
    glyph: orphan !== undefined ? '!' : isCompactBoundary(r) ? '=' : onMainLine(r) ? '*' : 'o',
    orphan,
  });
  const orphanOf = (r: RecordSummary, cycle: boolean): TreeNode['orphan'] => {
    const link = links.get(r);
    let reason: string | undefined;
    if (cycle) reason = 'parent cycle';
    else if (link?.kind === 'missing') reason = `parent ${link.uuid.slice(0, 8)} missing`;
    else if (link?.kind === 'null' && r.parentUuid === null && expectedRoot(index, r) === undefined) reason = 'parentUuid null';
    if (reason === undefined) return undefined;
    const cutsHistory = onMainLine(r);
    return { reason, score: branchScore(index, r), lost: cutsHistory ? historyLoss() : branchLoss(r), cutsHistory };
  };

  const lines: TreeLine[] = [];
  const visited = new Set<RecordSummary>();
  let forks = 0;
  let orphans = 0;
  let maxDepth = 0;

  const emitSegment = (segment: readonly TreeNode[], depth: number): void => {
    // The first and last rows, orphan starts and boundaries always show; long
    // runs of plain rows between them lose their middle.
    const important = (i: number): boolean =>
      i === 0 || i === segment.length - 1 || (segment[i] as TreeNode).glyph === '!' || (segment[i] as TreeNode).glyph === '=';
    let i = 0;
    while (i < segment.length) {
      if (important(i) || options.all) {
        lines.push({ kind: 'record', depth, node: segment[i] as TreeNode });
        i++;
        continue;
      }
      let j = i;
      while (j < segment.length && !important(j)) j++;
      const run = segment.slice(i, j);
      if (run.length > COLLAPSE_OVER) {
        for (const node of run.slice(0, KEEP_EACH_END)) lines.push({ kind: 'record', depth, node });
        lines.push({ kind: 'more', depth, count: run.length - 2 * KEEP_EACH_END });
        for (const node of run.slice(-KEEP_EACH_END)) lines.push({ kind: 'record', depth, node });
      } else {
        for (const node of run) lines.push({ kind: 'record', depth, node });
      }
      i = j;
    }
  };

  const render = (root: RecordSummary, rootOrphan: TreeNode['orphan']): void => {
    type Work = { start: RecordSummary; depth: number; fork: boolean; label?: ForkKind };
    const work: Work[] = [{ start: root, depth: 0, fork: false }];
    while (work.length > 0) {
      const item = work.pop() as Work;
      if (item.fork) lines.push({ kind: 'fork', depth: item.depth - 1, label: item.label });
      maxDepth = Math.max(maxDepth, item.depth);
      const segment: TreeNode[] = [];
      let current: RecordSummary | undefined = item.start;
      while (current !== undefined && !visited.has(current)) {
        visited.add(current);
        segment.push(nodeOf(current, current === root ? rootOrphan : undefined));
        const kids: RecordSummary[] = kidsOf(current).filter((k) => !visited.has(k));
        if (kids.length <= 1) {
          current = kids[0];
          continue;
        }
        forks++;
        const cont =
          kids.find((k) => towardLeaf.has(k)) ??
          kids.reduce((best, k) => (latestOf(k) > latestOf(best) ? k : best));
        work.push({ start: cont, depth: item.depth, fork: false });
        const sides = kids.filter((k) => k !== cont);
        const label = classifyFork(current, kidsOf(current));
        for (let s = sides.length - 1; s >= 0; s--) {
          work.push({ start: sides[s] as RecordSummary, depth: item.depth + 1, fork: true, label });
        }
        current = undefined;
      }
      emitSegment(segment, item.depth);
    }
  };

  for (const r of shown) {
    if (links.get(r)?.kind === 'shown' || visited.has(r)) continue;
    const orphan = orphanOf(r, false);
    if (orphan !== undefined) orphans++;
    render(r, orphan);
  }
  // Whatever a parent cycle kept out of reach: cut the cycle at its first record.
  for (const r of shown) {
    if (visited.has(r)) continue;
    orphans++;
    render(r, orphanOf(r, true));
  }
  return { lines, records: shown.length, forks, orphans, maxDepth, subagent: thread !== undefined };
}
