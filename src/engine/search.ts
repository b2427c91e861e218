/**
 * Runs a search over discovered session groups, newest first, handing each
 * session with a hit to `emit` as soon as it is known (results stream).
 *
 * Per group: a byte scan first (a group no file of which may hold the text
 * is not parsed at all); then, with the cache, the group's stored facts
 * when its files are as they were, and only the lines that may match are
 * parsed; otherwise each file is indexed once, the lines that may match
 * parsed exactly during that same read (see `hitObserver`), and the facts
 * stored for the next run. See src/core/views/search.ts for what is searched.
 */
import fs from 'node:fs';
import type { Discovery, SessionGroup } from '../core/discovery.js';
import { fileSource } from '../core/reader.js';
import type { SessionFile, SessionIndex } from '../core/session-index.js';
import { notTranscript } from '../core/transcript.js';
import {
  type Found,
  type Matcher,
  type SearchFacts,
  type SessionHits,
  findInFile,
  hitObserver,
  mayMatch,
  searchFacts,
  sessionHits,
} from '../core/views/search.js';
import { type CacheConfig, type GroupLookup, groupStore } from './cache.js';
import { indexFile, linkGroup, ProjectRegistry } from './linter.js';

export interface SearchOptions {
  readonly all: boolean;
  /** Keep and use what was learnt of each session under this cache. */
  readonly cache?: CacheConfig | undefined;
}

/** What a run could not do, told as it happens. */
interface SearchProblems {
  /** Says one line: a file that could not be read, or cache trouble. */
  readonly note: (message: string) => void;
  /** A file named on the command line could not be read. */
  failed: boolean;
}

/** A group's stored value: its facts, or that it holds nothing to search. */
type Stored = SearchFacts | null;

function mtimeOf(file: string): number {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

function fileMayMatch(file: string, matcher: Matcher): boolean {
  try {
    return mayMatch(fileSource(file), matcher);
  } catch {
    return true; // the indexer reports what is wrong
  }
}

/** Groups newest first: the file written last holds the latest activity, and results stream in this order. */
export function newestFirst(groups: readonly SessionGroup[]): SessionGroup[] {
  return groups
    .map((group) => ({ group, time: Math.max(...group.files.map((f) => (f.role === 'main' ? mtimeOf(f.path) : 0)), 0) }))
    .sort((a, b) => b.time - a.time || (a.group.files[0]?.path ?? '').localeCompare(b.group.files[0]?.path ?? ''))
    .map((g) => g.group);
}

export function searchGroups(
  discovery: Discovery,
  matcher: Matcher,
  options: SearchOptions,
  emit: (hits: SessionHits) => void,
  note: (message: string) => void,
): { readonly failed: boolean } {
  const problems: SearchProblems = { note, failed: false };
  const registry = new ProjectRegistry(discovery.projectFiles);
  const store =
    options.cache === undefined
      ? undefined
      : groupStore<Stored>(options.cache, options.all ? 'search-all' : 'search', discovery.projectFiles, note);
  for (const group of newestFirst(discovery.groups)) {
    const files = options.all ? group.files : group.files.filter((f) => f.role === 'main');
    if (files.length === 0) continue;
    // Most sessions do not say it: a byte scan leaves them unparsed.
    if (!files.some((f) => fileMayMatch(f.path, matcher))) continue;
    const shown = new Map(files.map((f) => [f.path, f.displayPath]));
    const display = (p: string): string => shown.get(p) ?? p;
    const lookup: GroupLookup<Stored> | undefined = store?.lookup(group.projectDir, files.map((f) => f.path));
    let hits: SessionHits | undefined;
    if (lookup?.hit !== undefined) {
      if (lookup.hit === null) continue;
      hits = fromFacts(lookup.hit, files, matcher, problems);
    } else {
      const read = readGroup(files, matcher, options.all, registry, lookup?.indexer, problems);
      if (read.complete && lookup !== undefined) lookup.store(read.facts ?? null, read.folderWide);
      hits = read.facts === undefined ? undefined : sessionHits(read.facts, (p) => read.found.get(p), display);
    }
    if (hits !== undefined) emit(hits);
  }
  for (const problem of store?.save() ?? []) note(problem);
  return { failed: problems.failed };
}

/** A group read from its stored facts: only lines of searched records that may match are parsed. */
function fromFacts(facts: SearchFacts, files: readonly SessionFile[], matcher: Matcher, problems: SearchProblems): SessionHits | undefined {
  const byPath = new Map(files.map((f) => [f.path, f]));
  const found = new Map<string, Found>();
  for (const file of facts.files) {
    if (file.records.length === 0) continue;
    try {
      found.set(file.path, findInFile(fileSource(file.path), file.records, matcher));
    } catch (error) {
      const shown = byPath.get(file.path);
      problems.note(`${shown?.displayPath ?? file.path}: cannot be read (${error instanceof Error ? error.message : String(error)})`);
      if (shown?.explicit === true) problems.failed = true;
    }
  }
  return sessionHits(facts, (p) => found.get(p), (p) => byPath.get(p)?.displayPath ?? p);
}

/** Indexes a group's files once, finding matches on the way, and works out its facts. */
function readGroup(
  files: readonly SessionFile[],
  matcher: Matcher,
  all: boolean,
  registry: ProjectRegistry,
  indexer: ((file: SessionFile, observer: ReturnType<typeof hitObserver>['observer']) => SessionIndex) | undefined,
  problems: SearchProblems,
): { facts: SearchFacts | undefined; found: Map<string, Found>; complete: boolean; folderWide: boolean } {
  const indexes: SessionIndex[] = [];
  const found = new Map<string, Found>();
  let complete = true;
  for (const file of files) {
    try {
      const collector = hitObserver(matcher);
      const index = indexer === undefined ? indexFile(file, collector.observer) : indexer(file, collector.observer);
      if (notTranscript(index) !== undefined) continue;
      indexes.push(index);
      found.set(file.path, collector.found);
    } catch (error) {
      complete = false;
      problems.note(`${file.displayPath}: cannot be read (${error instanceof Error ? error.message : String(error)})`);
      if (file.explicit === true) problems.failed = true;
    }
  }
  // Only the places of `all` (lost or abandoned) depend on parents found in
  // other files; the conversation resume loads is the file's own.
  let folderWide = false;
  if (all && indexes.some((i) => i.unresolvedParents().size > 0)) {
    linkGroup(indexes, registry);
    folderWide = true;
  }
  return { facts: indexes.length === 0 ? undefined : searchFacts(indexes, { all }), found, complete, folderWide };
}
