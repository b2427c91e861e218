/**
 * What resume brings back from one file, and what it would bring back if
 * every break were repaired: the numbers every command reports.
 *
 * - `loaded` (`resume.loaded`): the messages the real `claude --resume`
 *   (CLI 2.1.330) sends, from the model of its loader in resume-cli.ts.
 * - `sdk` (`resume.sdk`): the messages the Agent SDK's reader returns
 *   (resume-sdk.ts), which has no timestamp bridge and so loses more.
 * - `total`: the messages of the intended conversation, the CLI's reading
 *   of the file with every break repaired the way repair-targets.ts decides
 *   (damaged lines recovered, conflicting duplicate uuids told apart, broken
 *   links pointed at the rows they continue, every tool call answered), and
 *   the earlier bodies of a message written again; never fewer than `loaded`.
 * - `fidelity`: `loaded / total`, 1 for a healthy file.
 */
import { flagsOf, readAsCli, standInFinder, type CliBridge, type CliReading, type CliWalkEnd, type RepairView } from './resume-cli.js';
import { readAsSdk } from './resume-sdk.js';
import { isRewrite, type LinkRepair, linkRepairs, type Renamed, renamedCopies } from './repair-targets.js';
import { checkRequest, type RequestCheck } from './api-request.js';
import { ListTable } from './collections.js';
import type { RecordSummary } from './records.js';
import type { SessionIndex } from './session-index.js';

export type WalkEnd = CliWalkEnd;

export interface ResumeModel {
  /** The message resume continues from; undefined when nothing loads. */
  readonly leaf: RecordSummary | undefined;
  /** Rows on the loaded chain (with recovered siblings), root first. */
  readonly chain: readonly RecordSummary[];
  /** The messages `claude --resume` sends, in order. */
  readonly messages: readonly RecordSummary[];
  /** The messages of the intended conversation. */
  readonly intendedMessages: readonly RecordSummary[];
  /** The messages the Agent SDK's reader returns. */
  readonly sdkMessages: readonly RecordSummary[];
  readonly end: WalkEnd;
  /** Where the CLI's walk went on through a stand-in parent. */
  readonly bridges: readonly CliBridge[];
  readonly loaded: number;
  readonly sdk: number;
  readonly total: number;
  readonly fidelity: number;
  /** Every broken link with the row its repair points it at. */
  readonly repairs: readonly LinkRepair[];
  /** The entries of {@link repairs} for this record, in their order. */
  repairsOf(record: RecordSummary): readonly LinkRepair[];
  /** Later copies of a uuid that carry another record, with their new uuids. */
  readonly renamed: readonly Renamed[];
  /** The record is on the loaded chain. */
  onChain(record: RecordSummary): boolean;
  /**
   * The stand-in the CLI's walk takes for this record's missing or repeated
   * parent: the one it took, for a record on the chain; the one it would
   * take, were its walk to reach the record, otherwise.
   */
  standIn(record: RecordSummary): RecordSummary | undefined;
  /**
   * The request the CLI sends on resume, checked against the Messages API's
   * rules (api-request.ts); built on first use.
   */
  request(): RequestCheck;
}

const cache = new WeakMap<SessionIndex, ResumeModel>();

/**
 * The model of `index`, built on first ask. `between`, when this call builds
 * it, runs between its readings, each about as costly as the index: a run
 * bounded by memory collects the garbage of one before the next makes its
 * own (see collectGarbage in tuning.ts).
 */
export function resumeModel(index: SessionIndex, between?: () => void): ResumeModel {
  let model = cache.get(index);
  if (model === undefined) {
    model = buildModel(index, between ?? (() => undefined));
    cache.set(index, model);
  }
  return model;
}

/**
 * The messages `claude --resume` sends ({@link ResumeModel.messages}) alone,
 * without the rest of the model (the SDK's reading, the repairs, the
 * intended conversation), for a reader that needs nothing else (search).
 */
export function resumedMessages(index: SessionIndex): readonly RecordSummary[] {
  return cache.get(index)?.messages ?? readAsCli(index).messages;
}

/** Whether two records of a repeated uuid have different bodies (re-read from the file; any depth). */
function bodiesDiffer(index: SessionIndex): (a: RecordSummary, b: RecordSummary) => boolean {
  return (a, b) => index.bodyDigest(a) !== index.bodyDigest(b);
}

function repairView(index: SessionIndex, repairs: readonly LinkRepair[], renamed: readonly Renamed[]): RepairView {
  const uuids = new Map<RecordSummary, string>();
  const parents = new Map<RecordSummary, string | null>();
  for (const copy of renamed) {
    uuids.set(copy.record, copy.uuid);
    for (const child of copy.children) parents.set(child, copy.uuid);
  }
  const uuidOf = (r: RecordSummary): string | undefined => uuids.get(r) ?? r.uuid;
  for (const repair of repairs) {
    if (repair.choice === undefined) {
      if (repair.kind === 'cycle') parents.set(repair.record, null);
      continue;
    }
    parents.set(repair.record, uuidOf(repair.choice.target) ?? null);
  }
  return { uuidOf, parentOf: (r) => (parents.has(r) ? parents.get(r) : undefined) };
}

/**
 * The intended conversation with the earlier bodies of each record written
 * again under its uuid with another message (the same type and parent, a
 * different `message`), each just before the body that replaced it. The
 * CLI sends the last body only, at the first one's place, and the earlier
 * is lost on resume; but "a duplicated uuid with two bodies is two
 * messages" (cli.md), so it counts in `total` and costs fidelity. Copies
 * whose role and content say the same (a timestamp, token usage or key
 * order aside) count once.
 */
function withEarlierBodies(index: SessionIndex, messages: readonly RecordSummary[]): readonly RecordSummary[] {
  if (index.duplicates.size === 0) return messages;
  const counted = flagsOf(index, messages);
  let earlier: ListTable<RecordSummary, RecordSummary> | undefined;
  for (const group of index.duplicates.values()) {
    const kept = group.find((r) => counted[r.ordinal] === 1);
    if (kept === undefined) continue;
    let said: string[] | undefined;
    for (const copy of group) {
      if (counted[copy.ordinal] === 1 || copy.recovery !== undefined || !isRewrite(copy, kept)) continue;
      // Whole bodies first: a file of one conversation written again and again is all identical copies.
      if (index.bodyDigest(copy) === index.bodyDigest(kept)) continue;
      said ??= [index.messageDigest(kept)];
      const digest = index.messageDigest(copy);
      if (said.includes(digest)) continue;
      said.push(digest);
      (earlier ??= new ListTable()).add(kept, copy);
    }
  }
  if (earlier === undefined) return messages;
  const out: RecordSummary[] = [];
  for (const m of messages) {
    for (const copy of earlier.get(m)) out.push(copy);
    out.push(m);
  }
  return out;
}

function hasBreaks(index: SessionIndex, repairs: readonly LinkRepair[], renamed: readonly Renamed[]): boolean {
  return repairs.length > 0 || renamed.length > 0 || index.stats.hasBom || index.invalidLines.some((l) => l.recoveredRecords > 0);
}

function buildModel(index: SessionIndex, between: () => void): ResumeModel {
  const actual: CliReading = readAsCli(index);
  between();
  const sdk = readAsSdk(index);
  between();
  const renamed = index.duplicates.size === 0 ? [] : renamedCopies(index, bodiesDiffer(index));
  const repairs = linkRepairs(index, renamed);
  between();
  // The intended conversation answers every tool call: a row the CLI drops
  // mid-history for calls answered nowhere (and with it the text it holds)
  // is a message resume loses.
  const intended =
    hasBreaks(index, repairs, renamed) || actual.dropsUnansweredCalls
      ? readAsCli(index, { recoverDamage: true, repair: repairView(index, repairs, renamed), answerEveryCall: true })
      : actual;
  const intendedMessages = withEarlierBodies(index, intended.messages);
  const loaded = actual.messages.length;
  const total = Math.max(loaded, intendedMessages.length);
  // By ordinal: a set of records costs about 40 bytes each on a 500,000-record chain.
  let chainFlags: Uint8Array | undefined;
  const isOnChain = (r: RecordSummary): boolean => (chainFlags ??= flagsOf(index, actual.chain))[r.ordinal] === 1;
  let bridgeOf: ReadonlyMap<RecordSummary, RecordSummary> | undefined;
  let wouldBridge: ((r: RecordSummary) => RecordSummary | undefined) | undefined;
  let request: RequestCheck | undefined;
  // By record: the rules ask once per broken row, and a search of the list each time cost a file of many breaks their square.
  let repairsByRecord: ListTable<RecordSummary, LinkRepair> | undefined;
  return {
    leaf: actual.leaf,
    chain: actual.chain,
    messages: actual.messages,
    intendedMessages,
    sdkMessages: sdk.messages,
    end: actual.end,
    bridges: actual.bridges,
    loaded,
    sdk: sdk.messages.length,
    total,
    fidelity: total === 0 ? 1 : loaded / total,
    repairs,
    repairsOf: (r) => {
      if (repairsByRecord === undefined) {
        repairsByRecord = new ListTable();
        for (const repair of repairs) repairsByRecord.add(repair.record, repair);
      }
      return repairsByRecord.get(r);
    },
    renamed,
    onChain: isOnChain,
    standIn: (r) => {
      bridgeOf ??= new Map(actual.bridges.map((b) => [b.child, b.standIn]));
      const taken = bridgeOf.get(r);
      if (taken !== undefined || isOnChain(r)) return taken;
      return (wouldBridge ??= standInFinder(index))(r);
    },
    request: () => (request ??= checkRequest(index, actual.chain)),
  };
}
