/**
 * Real transcripts for the tests. Two corpora share one layout (a
 * SOURCES.md whose "Files" table names each file and its kind):
 *
 * - the bundled one, `fixtures/corpus/`: a small, licensed copy of real
 *   sessions that ships with the repository, so every test that needs real
 *   data runs on a fresh clone with nothing beside it;
 * - the shared one, `../shared/corpus` beside the repository (CI has it):
 *   the full collection, for wider sweeps that run when it is there and are
 *   skipped, saying why, when it is not.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import { classifyPath } from '../../src/core/discovery.js';
import { bufferSource } from '../../src/core/reader.js';
import { SessionIndex, type SessionFile } from '../../src/core/session-index.js';

const repositoryRoot = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');

export interface Corpus {
  /** How test titles name it. */
  readonly label: string;
  readonly root: string;
  readonly available: boolean;
}

export const BUNDLED_CORPUS: Corpus = {
  label: 'bundled corpus',
  root: path.join(repositoryRoot, 'fixtures', 'corpus'),
  available: true,
};

const sharedRoot = path.resolve(repositoryRoot, '..', 'shared', 'corpus');

export const SHARED_CORPUS: Corpus = {
  label: 'shared corpus',
  root: sharedRoot,
  available: fs.existsSync(path.join(sharedRoot, 'SOURCES.md')),
};

/** The bundled corpus's folder: always there. */
export const CORPUS = BUNDLED_CORPUS.root;

export interface CorpusFile {
  readonly relative: string;
  readonly absolute: string;
  readonly kind: string;
  /** sha256 of the file's bytes, where SOURCES.md records it. */
  readonly sha256: string | undefined;
}

const cellText = (cell: string | undefined): string => (cell ?? '').trim().replace(/^`(.*)`$/, '$1');

/** Every file SOURCES.md lists, with its kind (columns found by their header). */
export function corpusFiles(corpus: Corpus = BUNDLED_CORPUS): CorpusFile[] {
  const sources = fs.readFileSync(path.join(corpus.root, 'SOURCES.md'), 'utf8');
  const start = sources.indexOf('## Files');
  const end = sources.indexOf('\n## ', start + 1);
  const rows = sources
    .slice(start, end === -1 ? undefined : end)
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) => line.split('|').slice(1, -1));
  const header = (rows[0] ?? []).map(cellText);
  const fileAt = header.indexOf('file');
  const kindAt = header.indexOf('kind');
  const shaAt = header.indexOf('sha256');
  if (fileAt === -1 || kindAt === -1) throw new Error(`${corpus.root}/SOURCES.md: no "file" and "kind" columns in its Files table`);
  return rows.slice(2).map((cells) => {
    const relative = cellText(cells[fileAt]);
    return {
      relative,
      absolute: path.join(corpus.root, relative),
      kind: cellText(cells[kindAt]),
      sha256: shaAt === -1 ? undefined : cellText(cells[shaAt]),
    };
  });
}

/** Real Claude Code output, not normalised or rewritten by another tool. */
export function isRealUnaltered(kind: string): boolean {
  return kind.startsWith('real') && !kind.includes('normalized') && !kind.includes('transformed');
}

/** Real, unaltered main sessions (no subagent files): where corruptions are injected. */
export function realMainSessions(corpus: Corpus = BUNDLED_CORPUS): CorpusFile[] {
  return corpusFiles(corpus).filter(
    (f) => isRealUnaltered(f.kind) && !f.relative.includes('/subagents/') && !/agent-[^/]*\.jsonl$/.test(f.relative),
  );
}

/**
 * A wider sweep over the shared corpus: runs when `../shared/corpus` is
 * there, and otherwise shows as skipped with the reason in its title. Each
 * such sweep has a counterpart over the bundled corpus that always runs.
 */
export function describeSharedCorpus(title: string, body: (corpus: Corpus) => void): void {
  if (SHARED_CORPUS.available) describe(`${title} (shared corpus)`, () => body(SHARED_CORPUS));
  // The body reads the corpus while it is collected, so it is not called at all.
  else it.skip(`${title} (shared corpus): skipped, no ../shared/corpus beside the repository (CI has it)`);
}

/** Indexes text held in memory as if it were `<folder>/<name>`. */
export function indexText(text: string | Buffer, options: { folder?: string; name?: string; role?: SessionFile['role'] } = {}): SessionIndex {
  const folder = options.folder ?? '-home-u-proj';
  const name = options.name ?? '0b7a6f4e-2c1d-4e8f-9a0b-1c2d3e4f5a6b.jsonl';
  const file = classifyPath(path.join(path.sep, 'projects', folder, name), path.sep);
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  return SessionIndex.build(options.role === undefined ? file : { ...file, role: options.role }, () => bufferSource(bytes));
}
