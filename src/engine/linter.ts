/**
 * Runs rules over session groups. One group (a main session with its
 * subagent files) is indexed at a time, so memory follows the largest
 * session, not the size of the projects folder. Parents that a file does not
 * hold are looked up in the other files of its group first and then, only if
 * still missing, in a per-project-folder uuid registry built lazily by a
 * byte-level scan.
 */
import fs from 'node:fs';
import path from 'node:path';
import { countText } from '../core/count-text.js';
import { RuleCrashError } from '../core/errors.js';
import { type ByteSource, fileSource, scanLineViews } from '../core/reader.js';
import { parseLine } from '../core/parse-line.js';
import { BIG_INPUT_BYTES, boundHeapGrowth, collectGarbage } from '../tuning.js';
import { resumeModel } from '../core/resume.js';
import { violationSummaries } from '../core/api-request.js';
import { factsOf } from '../core/views/sessions.js';
import { type ExternalParent, type LineObserver, type SessionFile, SessionIndex, sessionIdOf } from '../core/session-index.js';
import { describeFsError, hasUndecodableName, type SessionGroup } from '../core/discovery.js';
import { forkReport } from '../core/forks.js';
import { scoreSession } from '../core/score.js';
import { notTranscript } from '../core/transcript.js';
import { indexOnTwoThreads } from './split-parse.js';
import {
  type Finding,
  type FileResult,
  type ForkSummary,
  type Severity,
  type SeveritySetting,
  countBySeverity,
  minSeverity,
  APPLICABILITY_RANK,
} from '../core/types.js';
import type { Report, Rule } from '../rules/rule.js';

export interface LintOptions {
  readonly rules: readonly Rule[];
  /** Per-rule severity overrides; rules set to `off` do not run. */
  readonly severities: ReadonlyMap<string, SeveritySetting>;
  /** When set, only these rules run. */
  readonly only?: ReadonlySet<string> | undefined;
  /** Each result also carries the file's facts for the sessions table (`sessions`). */
  readonly facts?: boolean | undefined;
  /**
   * Sessions at least this big are indexed on two threads (see
   * `split-parse.ts`); set only where nothing else runs on the other core.
   */
  readonly splitBytes?: number | undefined;
}

/** A file that could not be read at all during a run. */
export interface ReadFailure {
  readonly path: string;
  readonly message: string;
  /** The file was named on the command line (exit 2 when it cannot be read). */
  readonly explicit: boolean;
}

/** Indexes the files of one group; a file that cannot be read becomes a failure. */
function indexGroup(
  group: SessionGroup,
  onIndexed?: (index: SessionIndex) => void,
  indexer: (file: SessionFile) => SessionIndex = indexFile,
): { indexes: SessionIndex[]; failures: ReadFailure[] } {
  const indexes: SessionIndex[] = [];
  const failures: ReadFailure[] = [];
  for (const file of group.files) {
    try {
      const index = indexer(file);
      indexes.push(index);
      onIndexed?.(index);
    } catch (error) {
      failures.push({ path: file.displayPath, message: readErrorMessage(error, file.displayPath), explicit: file.explicit === true });
    }
  }
  return { indexes, failures };
}

/** Message templates split once into literal text (even indexes) and `{key}` names (odd). */
const templateParts = new Map<string, readonly string[]>();

/**
 * A message from its template: each `{key}` becomes its value, numbers with
 * thousands separators; a key without a value stays as written. A run can
 * report tens of thousands of findings, so the template is parsed once.
 */
function fill(template: string, data: Readonly<Record<string, string | number>> | undefined): string {
  let parts = templateParts.get(template);
  if (parts === undefined) {
    parts = template.split(/\{(\w+)\}/);
    templateParts.set(template, parts);
  }
  let message = parts[0] as string;
  for (let i = 1; i < parts.length; i += 2) {
    const key = parts[i] as string;
    const value = data?.[key];
    if (value === undefined) message += `{${key}}`;
    else if (typeof value === 'number') message += countText(value);
    else message += value;
    message += parts[i + 1] as string;
  }
  return message;
}

/**
 * Runs the enabled rules over one index and returns its findings in line
 * order. Exclusive rules run first; when one reports, the others do not run.
 */
export function lintIndex(index: SessionIndex, options: LintOptions): Finding[] {
  const findings: Finding[] = [];
  const collect = (): void => void collectGarbage(index.stats.byteLength);
  collect();
  const resume = resumeModel(index, collect);
  collect();
  const runRule = (rule: Rule): void => {
    const { meta } = rule;
    if (options.only !== undefined && !options.only.has(meta.id)) return;
    const setting = options.severities.get(meta.id) ?? meta.severity;
    if (setting === 'off') return;
    const configured: Severity = setting;
    const report = (r: Report): void => {
      const template = meta.messages[r.messageId];
      if (template === undefined) {
        throw new Error(`rule "${meta.id}" reported unknown messageId "${r.messageId}"`);
      }
      if (r.fix !== undefined) {
        if (meta.fixable === undefined) throw new Error(`rule "${meta.id}" produced a fix without meta.fixable`);
        if (APPLICABILITY_RANK[r.fix.applicability] > APPLICABILITY_RANK[meta.fixable]) {
          throw new Error(`rule "${meta.id}" produced a ${r.fix.applicability} fix but declares ${meta.fixable}`);
        }
      }
      const line = r.record?.line ?? r.line;
      if (line === undefined || line < 1 || line > Math.max(index.stats.lineCount, 1)) {
        throw new Error(`rule "${meta.id}" reported line ${String(line)} outside the file`);
      }
      // A milder form of a problem keeps its distance from the rule's level.
      const severity =
        r.severity === undefined || r.severity === meta.severity ? configured : minSeverity(configured, r.severity);
      findings.push({
        ruleId: meta.id,
        severity,
        messageId: r.messageId,
        message: fill(template, r.data),
        line,
        uuid: r.record?.uuid,
        fix: r.fix,
      });
    };
    try {
      rule.check({ index, resume, report });
    } catch (error) {
      throw new RuleCrashError(meta.id, index.file.displayPath, error);
    }
  };
  for (const rule of options.rules) if (rule.meta.exclusive === true) runRule(rule);
  if (findings.length === 0) {
    for (const rule of options.rules) if (rule.meta.exclusive !== true) runRule(rule);
  }
  findings.sort((a, b) => a.line - b.line || (a.ruleId < b.ruleId ? -1 : a.ruleId > b.ruleId ? 1 : 0));
  collect();
  return findings;
}

/**
 * Summarises an index and its findings into the result formatters see. A
 * file that is not a transcript has no conversation to measure: it gets no
 * resume figures, score or forks (never a "fidelity 100%"), whatever the
 * configuration says of the rule that reports it.
 */
export function resultOf(index: SessionIndex, findings: readonly Finding[]): FileResult {
  const sessionId = sessionIdOf(index);
  const base = {
    filePath: index.file.displayPath,
    sessionId,
    findings,
    ...countBySeverity(findings),
    recordCount: index.records.length,
    byteLength: index.stats.byteLength,
  };
  if (notTranscript(index) !== undefined) return { ...base, notTranscript: true };
  const resume = resumeModel(index);
  return {
    ...base,
    resume: {
      loaded: resume.loaded,
      total: resume.total,
      fidelity: round(resume.fidelity),
      sdk: resume.sdk,
      apiValid: resume.request().valid,
      apiViolations: violationSummaries(resume.request()),
    },
    score: scoreSession(index, resume).score,
    forks: forkSummary(index, resume),
  };
}

function forkSummary(index: SessionIndex, resume: ReturnType<typeof resumeModel>): ForkSummary {
  const report = forkReport(index, resume);
  return {
    ...report.counts,
    abandoned: report.abandoned.map((b) => ({ uuid: b.root.uuid, line: b.root.line, depth: b.depth, records: b.records })),
  };
}

function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/**
 * Lazily built, per project folder: uuid → files, from a byte scan of every
 * transcript of the folder, each file confirmed by reading its rows when a
 * lookup first needs it. Only consulted for parents a group cannot resolve
 * itself, so a healthy tree never pays for it.
 */
export class ProjectRegistry {
  private readonly built = new Map<string, FilesByUuid>();
  /** The uuids of the rows of the files lookups confirmed lately (at most {@link CONFIRMED_FILES_KEPT}). */
  private readonly rowsOf = new Map<string, ReadonlySet<string>>();
  constructor(private readonly projectFiles: ReadonlyMap<string, readonly string[]>) {}

  /** Every transcript of the folder is one of `held`: a scan could only find uuids their indexes hold. */
  covers(projectDir: string, held: ReadonlySet<string>): boolean {
    return (this.projectFiles.get(projectDir) ?? []).every((f) => held.has(f));
  }

  /**
   * The first file of the folder, other than `asking`, with a row whose uuid
   * is `uuid`. The byte scan names the files where the uuid appears as a
   * key; a row counts only if the file's index reads it (a damaged line that
   * holds the uuid does not), as in a run over the folder, which looks
   * parents up in the rows it parsed: a file named alone is judged the same.
   */
  lookup(projectDir: string, uuid: string, asking?: string): string | undefined {
    let found = this.built.get(projectDir);
    if (found === undefined) {
      found = new Map();
      for (const file of this.projectFiles.get(projectDir) ?? []) scanUuids(file, found);
      this.built.set(projectDir, found);
    }
    const files = found.get(uuid);
    for (const file of files === undefined ? [] : typeof files === 'string' ? [files] : files) {
      if (file !== asking && this.rows(file).has(uuid)) return file;
    }
    return undefined;
  }

  private rows(file: string): ReadonlySet<string> {
    let uuids = this.rowsOf.get(file);
    if (uuids === undefined) {
      uuids = rowUuids(file);
      // A `fix` of many continuations asks about many files: keep the latest few.
      if (this.rowsOf.size >= CONFIRMED_FILES_KEPT) this.rowsOf.delete(this.rowsOf.keys().next().value as string);
      this.rowsOf.set(file, uuids);
    }
    return uuids;
  }
}

/** How many files' row uuids a registry keeps (a 1 GB session's are about 30 MB). */
const CONFIRMED_FILES_KEPT = 8;

/**
 * The uuids of a file's rows, as its index would read them (the same lines,
 * the same parse and recovery of damaged ones), one line at a time: the
 * file asked about may be as big as the one being worked on, whose index
 * is alive meanwhile. Unreadable: none, as a run over the folder reads none.
 */
function rowUuids(file: string): Set<string> {
  const uuids = new Set<string>();
  try {
    // (The scan closes the source, whatever happens.)
    scanLineViews(transcriptSource(file), (view) => {
      for (const record of parseLine(view.text(), view.terminated)?.records ?? []) {
        if (typeof record.uuid === 'string') uuids.add(record.uuid);
      }
    });
  } catch {
    uuids.clear();
  }
  return uuids;
}

/**
 * The files of a folder in which each uuid appears as a key, in scan order:
 * the first {@link FILES_PER_UUID} (a continuation copies the history of the
 * session it continues, and the file asking for a parent, or another, may
 * hold the uuid only in a damaged line).
 */
type FilesByUuid = Map<string, string | string[]>;

const FILES_PER_UUID = 4;

const UUID_KEY = Buffer.from('"uuid"');

/** JSON's blanks around a colon: what a pretty-printed row puts there (Claude Code writes none). */
const MAX_BLANKS = 16;

/**
 * Where the string value of the key ending at `from` starts (after `:`
 * and its quote, blanks allowed around the colon); 0 when what follows is
 * not a colon and a string; -1 when `data` ends first.
 */
function valueStart(data: Buffer, from: number): number {
  let i = from;
  const blanks = (): void => {
    for (let n = 0; n < MAX_BLANKS && i < data.length && (data[i] === 0x20 || data[i] === 0x09); n++) i++;
  };
  blanks();
  if (i >= data.length) return -1;
  if (data[i] !== 0x3a) return 0;
  i++;
  blanks();
  if (i >= data.length) return -1;
  return data[i] === 0x22 ? i + 1 : 0;
}

/** Collects `"uuid":"…"` values (blanks allowed around the colon) chunk by chunk; never holds a whole file. */
function scanUuids(file: string, into: FilesByUuid): void {
  let source;
  try {
    source = fileSource(file);
  } catch {
    return;
  }
  const OVERLAP = 128; // longer than the key, its blanks and colon, and any uuid we accept
  const CHUNK = Math.min(8 * 1024 * 1024, Math.max(source.size, 1));
  const buffer = Buffer.allocUnsafe(CHUNK + OVERLAP);
  let kept = 0;
  let position = 0;
  try {
    for (;;) {
      const read = source.read(buffer, kept, CHUNK, position);
      if (read === 0) break;
      position += read;
      const end = kept + read;
      const data = buffer.subarray(0, end); // never search stale bytes past the data
      let at = data.indexOf(UUID_KEY, 0);
      let scannedTo = 0;
      while (at !== -1 && at < end) {
        const start = valueStart(data, at + UUID_KEY.length);
        if (start === -1) break; // finish it with the next chunk
        if (start === 0) {
          // `"uuid"` not followed by `:` and a string: not the key
          scannedTo = at + UUID_KEY.length;
          at = data.indexOf(UUID_KEY, scannedTo);
          continue;
        }
        const close = data.indexOf(0x22, start);
        if (close === -1 || close >= end) break; // finish it with the next chunk
        if (close - start <= 64) {
          const uuid = buffer.toString('latin1', start, close);
          const files = into.get(uuid);
          if (files === undefined) into.set(uuid, file);
          else if (typeof files === 'string') {
            if (files !== file) into.set(uuid, [files, file]);
          } else if (files.length < FILES_PER_UUID && !files.includes(file)) files.push(file);
        }
        scannedTo = close + 1;
        at = data.indexOf(UUID_KEY, scannedTo);
      }
      const carryFrom = Math.max(scannedTo, end - OVERLAP);
      kept = end - carryFrom;
      buffer.copy(buffer, 0, carryFrom, end);
    }
  } finally {
    source.close();
  }
}

/** Whether the main session file a subagent file belongs to exists. */
function mainSessionExists(index: SessionIndex): boolean {
  const sessionId = index.file.layoutSessionId ?? index.records.find((r) => r.sessionId !== undefined)?.sessionId;
  return sessionId !== undefined && fs.existsSync(path.join(index.file.projectDir, `${sessionId}.jsonl`));
}

/** Finds which file of a project folder holds a uuid. */
export interface UuidLookup {
  /** A file of the folder holding `uuid`, other than `asking`. */
  lookup(projectDir: string, uuid: string, asking: string): string | undefined;
  /** See {@link ProjectRegistry.covers}. */
  covers?(projectDir: string, held: ReadonlySet<string>): boolean;
}

function heldBy(indexes: readonly SessionIndex[]): ReadonlySet<string> {
  return new Set(indexes.map((i) => i.file.path));
}

/**
 * Resolves, for each index of a group, the parents it does not hold. The
 * registry is not asked when the indexes are every transcript of their
 * folder (`fix` of a session alone in its folder read it twice more, once
 * to plan and once for the registry's uuids, which it then kept).
 */
export function linkGroup(indexes: readonly SessionIndex[], registry: UuidLookup | undefined): void {
  const main = indexes.find((i) => i.file.role === 'main');
  // Whether the group is every transcript of a folder: asked once per folder, not per parent.
  const coveredFolders = new Map<string, boolean>();
  const covered = (dir: string): boolean => {
    let answer = coveredFolders.get(dir);
    if (answer === undefined) {
      answer = registry?.covers?.(dir, heldBy(indexes)) === true;
      coveredFolders.set(dir, answer);
    }
    return answer;
  };
  for (const index of indexes) {
    const missing = index.unresolvedParents();
    if (missing.size === 0) continue;
    const found = new Map<string, ExternalParent>();
    const isAgent = index.file.role === 'subagent' || index.file.role === 'legacy-agent';
    for (const uuid of missing) {
      let where: ExternalParent | undefined;
      for (const other of indexes) {
        if (other === index || !other.byUuid.has(uuid)) continue;
        where = { kind: other.file.role === 'main' ? 'main-session' : 'subagent', path: other.file.path };
        break;
      }
      // A subagent's parent lives in its main session; when that file does
      // not exist there is nothing to look up.
      if (where === undefined && isAgent && main === undefined && !mainSessionExists(index)) where = { kind: 'main-missing' };
      if (where === undefined && registry !== undefined && !covered(index.file.projectDir)) {
        const file = registry.lookup(index.file.projectDir, uuid, index.file.path);
        if (file !== undefined && file !== index.file.path) where = { kind: 'other-session', path: file };
      }
      if (where !== undefined) found.set(uuid, where);
    }
    index.setExternalParents(found);
  }
}

export interface GroupOutcome {
  readonly results: FileResult[];
  readonly failures: ReadFailure[];
}

/** Indexes, links and lints one session group. */
export function lintGroup(
  group: SessionGroup,
  options: LintOptions,
  registry: ProjectRegistry | undefined,
  onIndex?: (index: SessionIndex, findings: readonly Finding[]) => void,
  indexer?: (file: SessionFile) => SessionIndex,
): GroupOutcome {
  const { indexes, failures } = indexGroup(group, undefined, indexer);
  linkGroup(indexes, registry);
  const results: FileResult[] = [];
  for (const index of indexes) {
    const findings = lintIndex(index, options);
    onIndex?.(index, findings);
    results.push(resultOf(index, findings));
    index.releaseSource();
  }
  return { results, failures };
}

/** Deferred groups may hold at most this many file bytes in memory. */
export const MAX_DEFERRED_BYTES = 256 * 1024 * 1024;

function hasUnresolved(indexes: readonly SessionIndex[]): boolean {
  return indexes.some((index) => index.records.some((r) => index.hasMissingParent(r)));
}

/** Each parent uuid a group's files name that none of them holds, with the file that names it. */
function* parentsOutside(indexes: readonly SessionIndex[]): Generator<readonly [SessionIndex, string]> {
  for (const index of indexes) {
    for (const uuid of index.unresolvedParents()) {
      if (!indexes.some((other) => other !== index && other.byUuid.has(uuid))) yield [index, uuid];
    }
  }
}

/**
 * Every parent the group's files name is in one of them: what is said of the
 * group depends on its own files alone, not on the rest of its folder (the
 * files a parent could be looked up in, whether a main session exists).
 */
function selfContained(indexes: readonly SessionIndex[]): boolean {
  return parentsOutside(indexes).next().done === true;
}

/** Thrown by {@link lintFolder} on some groups of a folder, for a group that needs the rest of it. */
export class NeedsWholeFolder extends Error {
  constructor(readonly group: SessionGroup) {
    super(`a parent of ${group.files[0]?.displayPath ?? 'a group'} is in another file of its folder`);
  }
}

/** What {@link lintFolder} says with each group's outcome. */
export interface GroupInfo {
  readonly group: SessionGroup;
  /** See {@link selfContained}; false when the run did not ask. */
  readonly selfContained: boolean;
  /**
   * When the run asked and the group is not self-contained: each parent
   * uuid it looked up in the rest of its folder, and the file it was found
   * in (null: in none).
   */
  readonly lookups: ReadonlyArray<readonly [string, string | null]>;
}

/** The parents a group's files name that none of them holds, and where the linker found each. */
function outsideLookups(indexes: readonly SessionIndex[]): Array<readonly [string, string | null]> {
  return [...parentsOutside(indexes)].map(([index, uuid]) => {
    const found = index.externalParent(uuid);
    return [uuid, found !== undefined && 'path' in found ? found.path : null] as const;
  });
}

/**
 * Lints the session groups of one project folder, reading each file once.
 * The uuids of every indexed file are harvested as it goes; a group whose
 * parents are still unknown waits until the whole folder is indexed (the
 * parent may be in a file not read yet), and only when waiting would hold
 * too much in memory does it fall back to a byte scan of the folder.
 *
 * `cache`: each outcome says whether its group is {@link selfContained}
 * (what a per-group cache may keep); `partial` too, and the groups are only
 * those of their folder that changed (the cache has the others): a group
 * that is not self-contained throws {@link NeedsWholeFolder} before anything
 * of it is emitted, and the caller lints the whole folder instead.
 */
export function lintFolder(
  groups: readonly SessionGroup[],
  projectFiles: ReadonlyMap<string, readonly string[]>,
  options: LintOptions,
  emit: (outcome: GroupOutcome, info: GroupInfo) => void,
  indexer?: (file: SessionFile) => SessionIndex,
  cache?: {
    readonly partial: boolean;
    /** Filled with the uuids of the files read and the file of each. */
    readonly uuids?: Map<string, string> | undefined;
  },
): void {
  const partial = cache?.partial === true;
  const known = cache?.uuids ?? new Map<string, string>();
  const harvested: UuidLookup = { lookup: (_dir, uuid) => known.get(uuid) };
  // Scans the folder's files only when first asked.
  const registry = new ProjectRegistry(projectFiles);
  const harvestedThenScanned: UuidLookup = {
    lookup: (dir, uuid, asking) => known.get(uuid) ?? registry.lookup(dir, uuid, asking),
    covers: (dir, held) => registry.covers(dir, held),
  };
  const pending: Array<{ group: SessionGroup; indexes: SessionIndex[]; failures: ReadFailure[]; own: boolean }> = [];
  let pendingBytes = 0;
  const finish = (group: SessionGroup, indexes: readonly SessionIndex[], failures: ReadFailure[], own: boolean): void => {
    const results = indexes.map((index) => {
      const findings = lintIndex(index, options);
      const result = options.facts === true ? { ...resultOf(index, findings), facts: factsOf(index) } : resultOf(index, findings);
      index.releaseSource(); // its lines are read back only while it is linted
      return result;
    });
    const lookups = cache === undefined || own ? [] : outsideLookups(indexes);
    emit({ results, failures }, { group, selfContained: own, lookups });
  };
  for (const group of groups) {
    // A group alone in the run has no other group to find its parents in
    // (and one big session's uuids would be a second table of them); the
    // groups of a partial run find theirs in their own files.
    const harvest =
      (groups.length === 1 || partial) && cache?.uuids === undefined
        ? undefined
        : (index: SessionIndex): void => {
            for (const uuid of index.byUuid.keys()) if (!known.has(uuid)) known.set(uuid, index.file.path);
          };
    const { indexes, failures } = indexGroup(group, harvest, indexer ?? ((file) => indexFile(file, undefined, options.splitBytes)));
    const own = cache !== undefined && selfContained(indexes);
    if (!own && partial) throw new NeedsWholeFolder(group);
    linkGroup(indexes, harvested);
    if (!hasUnresolved(indexes)) {
      finish(group, indexes, failures, own);
      continue;
    }
    const bytes = indexes.reduce((n, i) => n + i.stats.byteLength, 0);
    if (pendingBytes + bytes <= MAX_DEFERRED_BYTES) {
      pending.push({ group, indexes, failures, own });
      pendingBytes += bytes;
      continue;
    }
    // The folder is scanned (once) for what no group read so far holds,
    // unless the group is the whole folder (linkGroup asks `covers`).
    linkGroup(indexes, harvestedThenScanned);
    finish(group, indexes, failures, own);
  }
  // The uuids harvested are those of the groups of this run; when they are
  // not the whole folder (one file named alone), the other files are
  // scanned for the parents still missing, as for a group too big to wait.
  const inRun = new Set(groups.flatMap((g) => g.files.map((f) => f.path)));
  for (const { group, indexes, failures, own } of pending) {
    linkGroup(indexes, registry.covers(group.projectDir, inRun) ? harvested : harvestedThenScanned);
    finish(group, indexes, failures, own);
  }
}

/** Indexes a file; one of `splitBytes` or more on two threads when it can (see `split-parse.ts`). */
export function indexFile(file: SessionFile, observer?: LineObserver, splitBytes?: number): SessionIndex {
  if (splitBytes !== undefined && observer === undefined) {
    let size: number | undefined;
    try {
      size = fs.statSync(file.path).size;
    } catch {
      // The build says why it cannot be read.
    }
    const index = size !== undefined && size >= splitBytes ? indexOnTwoThreads(file, size) : undefined;
    if (index !== undefined) return index;
  }
  return SessionIndex.build(file, () => transcriptSource(file.path), observer);
}

/**
 * A transcript's bytes, as the linter reads them: once one file has been
 * read past {@link BIG_INPUT_BYTES}, the process's heap grows by smaller
 * steps from then on ({@link boundHeapGrowth}): its index will be big
 * enough that memory, not time, is what to save.
 */
export function transcriptSource(file: string): ByteSource {
  const inner = fileSource(file);
  return {
    get size() {
      return inner.size;
    },
    read(target, targetOffset, length, position) {
      const n = inner.read(target, targetOffset, length, position);
      if (position + n >= BIG_INPUT_BYTES) boundHeapGrowth();
      return n;
    },
    close: () => inner.close(),
  };
}

function readErrorMessage(error: unknown, shown: string): string {
  // Listed by the walk a moment ago and not there now (unless its name could not be decoded, which describeFsError says).
  if ((error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT' && !hasUndecodableName(shown)) return `${shown}: vanished while being read`;
  return describeFsError(error, shown);
}
