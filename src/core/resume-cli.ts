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
 *    descend from it; then up to the nearest user or assistant row.
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
 * `messages` are the rows counted as `resume.loaded`: the chain's user and
 * assistant rows that are not meta and not sidechain rows, less trailing
 * rows the request cannot show (a thinking-only or API-error tail).
 */
import { TIMESTAMP_BRIDGE_MS } from './analysis.js';
import { isFileSnapshotRow, type RecordSummary } from './records.js';
import type { SessionIndex } from './session-index.js';


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
  /** Rows in map order (first occurrence of each uuid), last bodies. */
  readonly ordered: readonly RecordSummary[];
  readonly byUuid: ReadonlyMap<string, RecordSummary>;
  parentOf(r: RecordSummary): string | undefined;
  uuidOf(r: RecordSummary): string | undefined;
  readonly lastRow: RecordSummary | undefined;
  readonly newestRow: RecordSummary | undefined;
  readonly checkpoint: string | undefined;
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

function buildGraph(index: SessionIndex, options: CliReadOptions, ids: Identity): CliGraph {
  const byUuid = new Map<string, RecordSummary>();
  const progressParent = new Map<string, string | undefined>();
  const dropped = new Map<string, string | undefined>();
  // By ordinal: a map keyed by record would cost five times the memory on a 300,000-record session.
  const resolvedParent: Array<string | undefined> = new Array<string | undefined>(index.records.length).fill(undefined);
  const mapped = new Uint8Array(index.records.length);
  let lastRow: RecordSummary | undefined;
  let newestRow: RecordSummary | undefined;
  let checkpoint: string | undefined;
  let hasCheckpointRow = false;
  let cleared = false;
  let trailingSnapshots = 0;
  const resolveThroughProgress = (p: string | undefined): string | undefined => {
    let current = p;
    for (let guard = 0; current !== undefined && guard < 10_000; guard++) {
      if (!progressParent.has(current)) return current;
      current = progressParent.get(current);
    }
    return current;
  };
  for (const r of index.records) {
    if (!options.recoverDamage && lostOnParse(index, r)) continue;
    if (r.type === 'last-prompt') {
      if (r.leafUuid === null && r.explicit) cleared = true;
      if (typeof r.leafUuid === 'string') {
        checkpoint = r.leafUuid;
        hasCheckpointRow = true;
      }
      continue;
    }
    const uuid = ids.uuidOf(r);
    if (uuid === undefined) continue;
    const rawParent = ids.namedParent(r);
    if (r.type === 'progress') {
      progressParent.set(uuid, resolveThroughProgress(rawParent));
      continue;
    }
    if (!MAP_TYPES.has(r.type)) continue;
    // A parent that is a progress row written earlier reads as that row's parent.
    resolvedParent[r.ordinal] = resolveThroughProgress(rawParent);
    mapped[r.ordinal] = 1;
    if (isMessage(r) && r.bodyMalformed) {
      dropped.set(uuid, resolvedParent[r.ordinal]);
      continue;
    }
    byUuid.set(uuid, r);
    if (countsForLeaf(r)) {
      cleared = false;
      lastRow = r;
      trailingSnapshots = 0;
      if (newestRow === undefined || (r.timestamp ?? '') > (newestRow.timestamp ?? '')) newestRow = r;
    } else if (!r.isSidechain && isFileSnapshotRow(r)) {
      trailingSnapshots++;
    }
  }
  const ordered: RecordSummary[] = [];
  const placed = new Set<string>();
  for (const r of index.records) {
    const uuid = ids.uuidOf(r);
    if (uuid === undefined || placed.has(uuid) || mapped[r.ordinal] !== 1) continue;
    const body = byUuid.get(uuid);
    if (body === undefined) continue;
    placed.add(uuid);
    ordered.push(body);
  }
  // A child of a dropped row hangs from the dropped row's nearest surviving ancestor.
  const parentOf = (r: RecordSummary): string | undefined => {
    let p = resolvedParent[r.ordinal];
    for (let guard = 0; p !== undefined && dropped.has(p) && guard < 10_000; guard++) p = dropped.get(p);
    return p;
  };
  return { ordered, byUuid, parentOf, uuidOf: ids.uuidOf, lastRow, newestRow, checkpoint, hasCheckpointRow, cleared, trailingSnapshots };
}

/** Whether `ancestor` is on the parent chain of `r` (cycle-safe). */
function descends(graph: CliGraph, r: RecordSummary, ancestor: RecordSummary): boolean {
  const seen = new Set<RecordSummary>();
  let current: RecordSummary | undefined = r;
  while (current !== undefined && !seen.has(current)) {
    if (current === ancestor) return true;
    seen.add(current);
    const p = graph.parentOf(current);
    current = p === undefined ? undefined : graph.byUuid.get(p);
  }
  return false;
}

function upToMessage(graph: CliGraph, start: RecordSummary | undefined): RecordSummary | undefined {
  const seen = new Set<RecordSummary>();
  let current = start;
  while (current !== undefined && !seen.has(current)) {
    if (isMessage(current)) return current;
    seen.add(current);
    const p = graph.parentOf(current);
    current = p === undefined ? undefined : graph.byUuid.get(p);
  }
  return undefined;
}

function newestDescendant(graph: CliGraph, from: RecordSummary): RecordSummary {
  const children = new Map<string, RecordSummary[]>();
  for (const r of graph.ordered) {
    const p = graph.parentOf(r);
    if (p === undefined) continue;
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
    for (const c of children.get(graph.uuidOf(r) as string) ?? []) {
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
  const checkpoint = graph.checkpoint === undefined ? undefined : graph.byUuid.get(graph.checkpoint);
  if (checkpoint !== undefined && last !== undefined && !descends(graph, last, checkpoint)) candidate = checkpoint;
  const leaf = upToMessage(graph, candidate);
  if (leaf !== undefined && graph.trailingSnapshots === 0) return leaf;
  return fallbackLeaf(graph) ?? leaf;
}

/** Terminal rows walked up to their nearest message; the latest by timestamp. */
function fallbackLeaf(graph: CliGraph): RecordSummary | undefined {
  const parents = new Set<string>();
  for (const r of graph.ordered) {
    const p = graph.parentOf(r);
    if (p !== undefined) parents.add(p);
  }
  const leaves: RecordSummary[] = [];
  for (const r of graph.ordered) {
    if (parents.has(graph.uuidOf(r) as string)) continue;
    const m = upToMessage(graph, r);
    if (m !== undefined && !m.isSidechain && !leaves.includes(m)) leaves.push(m);
  }
  if (leaves.length === 0) return undefined;
  return leaves.reduce((best, r) => (r.time > best.time || Number.isNaN(best.time) ? r : best));
}

/** Rows ordered by time, for the stand-in search; built on the first gap. */
class StandIns {
  private rows: RecordSummary[] | undefined;

  constructor(private readonly graph: CliGraph) {}

  find(child: RecordSummary, onChain: { has(r: RecordSummary): boolean }): RecordSummary | undefined {
    if (Number.isNaN(child.time)) return undefined;
    if (this.rows === undefined) {
      this.rows = this.graph.ordered.filter((r) => !isFileSnapshotRow(r) && !Number.isNaN(r.time));
      // Latest time first; among equal times the first in map order wins
      // (measured: a stand-in and its twin written in the same millisecond).
      this.rows.sort((a, b) => a.time - b.time);
    }
    const rows = this.rows;
    let lo = 0;
    let hi = rows.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((rows[mid] as RecordSummary).time <= child.time) lo = mid + 1;
      else hi = mid;
    }
    let found: RecordSummary | undefined;
    for (let i = lo - 1; i >= 0; i--) {
      const c = rows[i] as RecordSummary;
      if (child.time - c.time > TIMESTAMP_BRIDGE_MS) break;
      if (found !== undefined && c.time < found.time) break;
      if (c !== child && c.isSidechain === child.isSidechain && !onChain.has(c)) found = c;
    }
    return found;
  }
}

function walk(graph: CliGraph, leaf: RecordSummary): { rows: RecordSummary[]; end: CliWalkEnd; bridges: CliBridge[] } {
  const rows: RecordSummary[] = [];
  const onChain = new Set<RecordSummary>();
  const bridges: CliBridge[] = [];
  const standIns = new StandIns(graph);
  let current = leaf;
  for (;;) {
    rows.push(current);
    onChain.add(current);
    const p = graph.parentOf(current);
    if (p === undefined) return { rows: rows.reverse(), end: { kind: 'root', at: current }, bridges };
    const parent = graph.byUuid.get(p);
    if (parent !== undefined && !onChain.has(parent)) {
      current = parent;
      continue;
    }
    const standIn = standIns.find(current, onChain);
    if (standIn === undefined) {
      const end: CliWalkEnd = parent === undefined ? { kind: 'missing-parent', at: current } : { kind: 'cycle', at: current };
      return { rows: rows.reverse(), end, bridges };
    }
    bridges.push({ child: current, standIn, reason: parent === undefined ? 'missing' : 'visited' });
    current = standIn;
  }
}

/**
 * Puts back the rows of each API response on the chain that the walk did
 * not pass through, and the tool results that answer them.
 */
function recoverResponses(graph: CliGraph, chain: readonly RecordSummary[]): RecordSummary[] {
  const onChain = new Set(chain);
  const ids = new Set<string>();
  for (const r of chain) if (r.type === 'assistant' && r.messageId !== undefined) ids.add(r.messageId);
  if (ids.size === 0) return [...chain];
  const byId = new Map<string, RecordSummary[]>();
  let missing = false;
  for (const r of graph.ordered) {
    if (r.type !== 'assistant' || r.messageId === undefined || !ids.has(r.messageId)) continue;
    const list = byId.get(r.messageId);
    if (list === undefined) byId.set(r.messageId, [r]);
    else list.push(r);
    if (!onChain.has(r)) missing = true;
  }
  // Tool results whose call is on the chain but which are not.
  const calls = new Map<string, RecordSummary>();
  for (const list of byId.values()) for (const r of list) for (const t of r.toolUseIds) calls.set(t, r);
  const answered = new Set<string>();
  for (const r of chain) for (const t of r.toolResultIds) answered.add(t);
  const results: RecordSummary[] = [];
  for (const r of graph.ordered) {
    if (onChain.has(r) || r.type !== 'user' || r.toolResultIds.length === 0) continue;
    if (r.toolResultIds.some((t) => calls.has(t) && !answered.has(t))) results.push(r);
  }
  if (!missing && results.length === 0) return [...chain];
  const inserts = new Map<RecordSummary, RecordSummary[]>();
  const anchorOf = new Map<string, RecordSummary>();
  for (const r of chain) if (r.type === 'assistant' && r.messageId !== undefined) anchorOf.set(r.messageId, r);
  const add = (anchor: RecordSummary, r: RecordSummary): void => {
    if (onChain.has(r)) return;
    onChain.add(r);
    const list = inserts.get(anchor);
    if (list === undefined) inserts.set(anchor, [r]);
    else list.push(r);
  };
  for (const [id, list] of byId) {
    const anchor = anchorOf.get(id) as RecordSummary;
    for (const r of list) add(anchor, r);
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
export function requestMessages(chain: readonly RecordSummary[]): ApiMessage[] {
  const answered = new Set<string>();
  for (const r of chain) for (const t of r.toolResultIds) answered.add(t);
  let lastTurn = -1;
  chain.forEach((r, i) => {
    if (isRealTurn(r)) lastTurn = i;
  });
  const kept = chain.filter((r, i) => {
    if (r.type !== 'assistant' || r.toolUseIds.length === 0) return true;
    if (r.toolUseIds.some((t) => answered.has(t))) return true;
    // A call cut off at the end of the history gets a synthetic result instead.
    return i > lastTurn && chain.slice(i + 1).every((x) => x.type !== 'assistant' && !isRealTurn(x));
  });
  const messages: Building[] = [];
  for (const r of kept) {
    if (r.type === 'assistant') {
      const id = r.messageId;
      let merged = false;
      if (id !== undefined) {
        for (let j = messages.length - 1; j >= 0; j--) {
          const m = messages[j] as Building;
          if (m.role === 'assistant' && m.messageId === id) {
            m.rows.push(r);
            if (j < messages.length - 1) m.joinedAcross = [...m.joinedAcross, r];
            merged = true;
            break;
          }
          if (m.role === 'user' && !m.rows.every(passableForMerge)) break;
        }
      }
      if (merged) continue;
      const last = messages[messages.length - 1];
      if (last !== undefined && last.role === 'assistant' && last.messageId === undefined && id === undefined) last.rows.push(r);
      else messages.push({ role: 'assistant', rows: [r], messageId: id, joinedAcross: NONE_JOINED });
    } else if (r.type === 'user' || r.type === 'attachment' || (r.type === 'system' && r.subtype === 'local_command')) {
      const last = messages[messages.length - 1];
      if (last !== undefined && last.role === 'user') last.rows.push(r);
      else messages.push({ role: 'user', rows: [r], messageId: undefined, joinedAcross: NONE_JOINED });
    }
  }
  return messages;
}

/**
 * The rows whose content reaches the request, after the CLI's
 * normalisation of {@link requestMessages}: tool blocks that lost their
 * partner are dropped, and a response left with nothing but thinking is
 * not sent.
 */
function sentRows(chain: readonly RecordSummary[]): Set<RecordSummary> {
  const messages = requestMessages(chain);
  const sent = new Set<RecordSummary>();
  const seenCalls = new Set<string>();
  let previousCalls = new Set<string>();
  for (const m of messages) {
    if (m.role === 'assistant') {
      const calls = new Set<string>();
      const showing: RecordSummary[] = [];
      let substance = false;
      for (const r of m.rows) {
        let shows = false;
        let call = 0;
        for (const kind of r.blocks) {
          if (kind === 'u') {
            const id = r.toolUseIds[call++];
            if (id === undefined || seenCalls.has(id)) continue;
            seenCalls.add(id);
            calls.add(id);
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
      // A response left with nothing but thinking is not sent.
      if (substance) for (const r of showing) sent.add(r);
      previousCalls = calls;
    } else {
      for (const r of m.rows) {
        if (r.type !== 'user') continue;
        let shows = r.blocks.includes('t') || r.blocks.includes('i') || r.blocks.includes('d');
        for (const t of r.toolResultIds) {
          if (previousCalls.has(t)) {
            shows = true;
            previousCalls.delete(t);
          }
        }
        if (shows) sent.add(r);
      }
      previousCalls = new Set();
    }
  }
  return sent;
}

/** No text and no image: a row the request could carry without a trace one could map back. */
function traceless(r: RecordSummary): boolean {
  return !r.blocks.includes('t') && !r.blocks.includes('i');
}

/**
 * The counted messages: rows whose content is sent, and rows the request
 * cannot show (thinking, tool blocks the CLI dropped) lying on the parent
 * chain between two sent rows.
 */
function countedMessages(
  index: SessionIndex,
  chain: readonly RecordSummary[],
  sent: ReadonlySet<RecordSummary>,
  ids: Identity,
  recovered: boolean,
): RecordSummary[] {
  const sentUuids = new Set<string>();
  for (const r of sent) sentUuids.add(ids.uuidOf(r) as string);
  const firstParent = new Map<string, string | undefined>();
  const firstRow = new Map<string, RecordSummary>();
  for (const r of index.records) {
    const uuid = ids.uuidOf(r);
    if (uuid === undefined || (!recovered && r.recovery !== undefined)) continue;
    if (!firstParent.has(uuid)) firstParent.set(uuid, ids.namedParent(r));
    if (isMessage(r) && !firstRow.has(uuid)) firstRow.set(uuid, r);
  }
  const filled = new Set<string>();
  for (const uuid of sentUuids) {
    const path: string[] = [];
    let p = firstParent.get(uuid);
    for (let guard = 0; typeof p === 'string' && !sentUuids.has(p) && guard < 100_000; guard++) {
      path.push(p);
      p = firstParent.get(p);
    }
    if (typeof p !== 'string' || !sentUuids.has(p)) continue;
    for (const q of path) {
      const row = firstRow.get(q);
      if (row !== undefined && traceless(row)) filled.add(q);
    }
  }
  const out: RecordSummary[] = [];
  const seen = new Set<string>();
  for (const r of chain) {
    const uuid = ids.uuidOf(r) as string;
    if (!counted(r, recovered) || seen.has(uuid) || !(sent.has(r) || filled.has(uuid))) continue;
    seen.add(uuid);
    out.push(r);
  }
  return out;
}

export function readAsCli(index: SessionIndex, options: CliReadOptions = {}): CliReading {
  const ids = identity(options.repair);
  const graph = buildGraph(index, options, ids);
  const leaf = chooseLeaf(graph);
  if (leaf === undefined) return { leaf, chain: [], messages: [], end: { kind: 'empty' }, bridges: [] };
  const walked = walk(graph, leaf);
  const chain = recoverResponses(graph, walked.rows);
  const messages = countedMessages(index, chain, sentRows(chain), ids, options.recoverDamage === true);
  return { leaf, chain, messages, end: walked.end, bridges: walked.bridges };
}

/**
 * The stand-in the CLI's walk would take for a row whose parent is missing,
 * were the walk to reach it: the latest row on the same side at most 5 s
 * older, not one of the row's own descendants.
 */
export function standInFinder(index: SessionIndex): (r: RecordSummary) => RecordSummary | undefined {
  let standIns: StandIns | undefined;
  return (r) => {
    standIns ??= new StandIns(buildGraph(index, {}, identity(undefined)));
    return standIns.find(r, { has: (c) => index.isAncestor(r, c) });
  };
}
