/**
 * `cclint search <text> [paths…]`: the sessions where a text was said (by the
 * person or by Claude), newest first, each with its title, time, excerpts
 * with the match highlighted, and the command that resumes it. Only the
 * conversation `claude --resume` loads is searched unless `--all`. Results
 * are written as each session is read (sessions are taken newest file
 * first). Read-only. Exit 0 when something matched, 1 when nothing did (as
 * grep), 2 when the search could not run.
 */
import { Command, Option } from 'commander';
import { UsageError } from '../core/errors.js';
import { type Matcher, type SessionHits, plainMatcher, regexMatcher } from '../core/views/search.js';
import { openCache } from '../engine/cache.js';
import { searchGroups } from '../engine/search.js';
import { renderSessionHits, sessionHitsJson } from '../formatters/search.js';
import type { Io } from '../io.js';
import { useColor } from '../io.js';
import { defaultProjectsRoot } from '../core/discovery.js';
import { painter, plural } from './render.js';
import { discoverInputs, note, sessionProgress, resolveInputs, runConfig } from './shared.js';

export interface SearchOptions {
  readonly regex?: boolean;
  readonly all?: boolean;
  readonly format: 'text' | 'json';
  readonly color?: boolean;
  readonly cache?: boolean;
  /** `--config`: its ignorePatterns say which files are left out. */
  readonly config?: string;
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

/**
 * Runs a search; calls `emit` once per session with a hit, in output order,
 * with a progress line on a terminal in between. Returns whether a named
 * path failed.
 */
export async function runSearch(text: string, paths: readonly string[], options: SearchOptions, io: Io, emit: (hits: SessionHits) => void): Promise<boolean> {
  // Checked here, for a usage error before anything is read.
  matcherFor(text, options.regex === true);
  const { ignore } = runConfig(io, options.config, []);
  const { inputs } = resolveInputs(paths, io);
  const all = options.all === true;
  const cache =
    options.cache === true
      ? openCache(io.env, io.cwd, defaultProjectsRoot(io.env), inputs, { rules: [], severities: new Map(), only: undefined }, all ? 'search-all' : 'search')
      : undefined;
  const { discovery, unreadableExplicit } = discoverInputs(io, inputs, { ignore });
  const progress = sessionProgress(io, 'searching', discovery.groups.length);
  const { failed } = await searchGroups(
    discovery,
    { text, regex: options.regex === true },
    { all, cache, env: io.env },
    (hits) => {
      progress.clear();
      emit(hits);
    },
    (message) => {
      progress.clear();
      note(io, message);
    },
    (done, total) => progress.step(done, total),
  );
  progress.clear();
  return unreadableExplicit || failed;
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
    .option('-c, --config <file>', 'use this config file (its ignorePatterns) instead of the .cclintrc.json / cclint.config.json found from here upward')
    .option('--cache', 'remember what each session is under $CCLINT_HOME/cache; a session whose files did not change is not parsed again')
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
  cclint search --cache flaky                      later searches parse only the sessions that changed
  cclint search --format json token | jq '.[0].command'

Exit codes: 0 something matched, 1 nothing matched, 2 bad usage or an unreadable path.`,
    )
    .action(async (text: string, paths: string[], options: SearchOptions) => {
      const paint = painter(useColor(io.stdout, io.env, options.color));
      const json = options.format === 'json';
      let sessions = 0;
      let hits = 0;
      if (json) io.stdout.write('[');
      const failed = await runSearch(text, paths, options, io, (s) => {
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
