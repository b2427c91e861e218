/**
 * `cclint search <text> [paths…]`: the sessions where a text was said (by the
 * person or by Claude), newest first, each with its title, time, excerpts
 * with the match highlighted, and the command that resumes it. Only the
 * conversation `claude --resume` loads is searched unless `--all`. Results
 * are written as each session is read (sessions are taken newest file
 * first). Read-only. Exit 0 when something matched, 1 when nothing did (as
 * grep), 2 when the search could not run.
 */
import fs from 'node:fs';
import { Command, Option } from 'commander';
import { UsageError } from '../core/errors.js';
import type { SessionIndex } from '../core/session-index.js';
import { notTranscript } from '../core/transcript.js';
import { type Matcher, type SessionHits, plainMatcher, regexMatcher, searchSession } from '../core/views/search.js';
import { indexFile, linkGroup, ProjectRegistry } from '../engine/linter.js';
import { renderSessionHits, sessionHitsJson } from '../formatters/search.js';
import type { Io } from '../io.js';
import { useColor } from '../io.js';
import { painter, plural } from './render.js';
import { discoverInputs, note, resolveInputs, runConfig } from './shared.js';

export interface SearchOptions {
  readonly regex?: boolean;
  readonly all?: boolean;
  readonly format: 'text' | 'json';
  readonly color?: boolean;
}

function matcherFor(text: string, regex: boolean): Matcher {
  if (text === '') throw new UsageError('search: give a non-empty text');
  if (!regex) return plainMatcher(text);
  try {
    return regexMatcher(text);
  } catch (error) {
    throw new UsageError(`--regex ${text}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** Reads a file in chunks and asks whether any chunk may hold a match; true when it cannot tell. */
function fileMayMatch(file: string, matcher: Matcher): boolean {
  const test = matcher.mayMatchChunk;
  if (test === undefined) return true;
  const CHUNK = 8 * 1024 * 1024;
  const overlap = Math.max(0, matcher.needleBytes - 1);
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch {
    return true; // the indexer reports what is wrong
  }
  try {
    const buffer = Buffer.allocUnsafe(CHUNK + overlap);
    let kept = 0;
    let position = 0;
    for (;;) {
      const read = fs.readSync(fd, buffer, kept, CHUNK, position);
      if (read === 0) return false;
      position += read;
      const end = kept + read;
      if (test(buffer.toString('latin1', 0, end))) return true;
      kept = Math.min(overlap, end);
      buffer.copy(buffer, 0, end - kept, end);
    }
  } catch {
    return true;
  } finally {
    fs.closeSync(fd);
  }
}

function mtimeOf(file: string): number {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/** Runs a search; calls `emit` once per session with a hit, in output order. Returns whether a named path failed. */
export function runSearch(text: string, paths: readonly string[], options: SearchOptions, io: Io, emit: (hits: SessionHits) => void): boolean {
  const matcher = matcherFor(text, options.regex === true);
  const { ignore } = runConfig(io, undefined, []);
  const { inputs } = resolveInputs(paths, io);
  const { discovery, unreadableExplicit } = discoverInputs(io, inputs, { ignore });
  let failed = unreadableExplicit;
  const registry = new ProjectRegistry(discovery.projectFiles);
  // Newest first, while streaming: the file written last holds the latest activity.
  const groups = discovery.groups
    .map((group) => ({ group, time: Math.max(...group.files.map((f) => (f.role === 'main' ? mtimeOf(f.path) : 0)), 0) }))
    .sort((a, b) => b.time - a.time || (a.group.files[0]?.path ?? '').localeCompare(b.group.files[0]?.path ?? ''));
  for (const { group } of groups) {
    const files = options.all === true ? group.files : group.files.filter((f) => f.role === 'main');
    if (files.length === 0) continue;
    // Most sessions do not say it: a byte scan leaves them unparsed.
    if (!files.some((f) => fileMayMatch(f.path, matcher))) continue;
    const indexes: SessionIndex[] = [];
    for (const file of files) {
      try {
        const index = indexFile(file);
        if (notTranscript(index) === undefined) indexes.push(index);
      } catch (error) {
        note(io, `${file.displayPath}: cannot be read (${error instanceof Error ? error.message : String(error)})`);
        if (file.explicit === true) failed = true;
      }
    }
    if (indexes.length === 0) continue;
    if (indexes.some((i) => i.unresolvedParents().size > 0)) linkGroup(indexes, registry);
    const hits = searchSession(indexes, matcher, { all: options.all === true });
    if (hits !== undefined) emit(hits);
  }
  return failed;
}

export function searchCommand(io: Io, setExit: (code: number) => void): Command {
  return new Command('search')
    .description('find sessions by what was said; each hit names the session, an excerpt and the command that resumes it')
    .argument('<text>', 'the text to find (case-insensitive), or with --regex a regular expression')
    .argument('[paths...]', 'session files, project folders or a projects root (default: the local Claude Code projects folder)')
    .option('-e, --regex', 'the text is a JavaScript regular expression (case-insensitive unless it has an upper-case letter)')
    .option('-a, --all', 'also search what resume does not load: abandoned branches, history cut off by a break, sidechains (labelled)')
    .addOption(new Option('-f, --format <name>', 'output format').choices(['text', 'json']).default('text'))
    .option('--no-color', 'no colour, even on a terminal (NO_COLOR is honoured too)')
    .addHelpText(
      'after',
      `
Searches what the person typed and what Claude answered (text blocks; not tool calls,
tool output or thinking), in the conversation \`claude --resume\` loads. Sessions come
newest first, each with its title, its last activity (UTC), the command that resumes it
and up to 5 excerpts with the match highlighted. Results appear as sessions are read.

Examples:
  cclint search "connection pool"                  every session under ~/.claude/projects
  cclint search -e 'migrat(e|ion)' ~/.claude/projects/-home-me-app
  cclint search --all flaky                        also abandoned branches and sidechains
  cclint search --format json token | jq '.[0].command'

Exit codes: 0 something matched, 1 nothing matched, 2 bad usage or an unreadable path.`,
    )
    .action((text: string, paths: string[], options: SearchOptions) => {
      const paint = painter(useColor(io.stdout, io.env, options.color));
      const json = options.format === 'json';
      let sessions = 0;
      let hits = 0;
      if (json) io.stdout.write('[');
      const failed = runSearch(text, paths, options, io, (s) => {
        if (json) io.stdout.write(`${sessions === 0 ? '\n' : ',\n'}${sessionHitsJson(s)}`);
        else io.stdout.write(renderSessionHits(s, paint));
        sessions++;
        hits += s.hits.length;
      });
      if (json) io.stdout.write(sessions === 0 ? ']\n' : '\n]\n');
      else io.stdout.write(sessions === 0 ? 'no match\n' : `${plural(hits, 'match', 'matches')} in ${plural(sessions, 'session')}\n`);
      setExit(failed ? 2 : sessions > 0 ? 0 : 1);
    });
}
