/**
 * The shared corpus of public transcripts (`../shared/corpus`, beside the
 * repository; CI has it there too) and its SOURCES.md, which says which
 * files are real, unaltered Claude Code output.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { classifyPath } from '../../src/core/discovery.js';
import { bufferSource } from '../../src/core/reader.js';
import { SessionIndex, type SessionFile } from '../../src/core/session-index.js';

export const CORPUS = path.resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../shared/corpus');

export interface CorpusFile {
  readonly relative: string;
  readonly absolute: string;
  readonly kind: string;
}

/** Every file of the corpus with its SOURCES.md kind. */
export function corpusFiles(): CorpusFile[] {
  const sources = fs.readFileSync(path.join(CORPUS, 'SOURCES.md'), 'utf8');
  const section = sources.slice(sources.indexOf('## Files'), sources.indexOf('## Statistics'));
  const files: CorpusFile[] = [];
  for (const line of section.split('\n')) {
    const cells = line.split('|').map((c) => c.trim());
    const name = /^`(.+)`$/.exec(cells[1] ?? '')?.[1];
    if (name === undefined || cells[3] === undefined) continue;
    files.push({ relative: name, absolute: path.join(CORPUS, name), kind: cells[3] });
  }
  return files;
}

/** Real Claude Code output, not normalised or rewritten by another tool. */
export function isRealUnaltered(kind: string): boolean {
  return kind.startsWith('real') && !kind.includes('normalized') && !kind.includes('transformed');
}

/** Real, unaltered main sessions (no subagent files): where corruptions are injected. */
export function realMainSessions(): CorpusFile[] {
  return corpusFiles().filter(
    (f) => isRealUnaltered(f.kind) && !f.relative.includes('/subagents/') && !/agent-[^/]*\.jsonl$/.test(f.relative),
  );
}

/** Indexes text held in memory as if it were `<folder>/<name>`. */
export function indexText(text: string | Buffer, options: { folder?: string; name?: string; role?: SessionFile['role'] } = {}): SessionIndex {
  const folder = options.folder ?? '-home-u-proj';
  const name = options.name ?? '0b7a6f4e-2c1d-4e8f-9a0b-1c2d3e4f5a6b.jsonl';
  const file = classifyPath(path.join(path.sep, 'projects', folder, name), path.sep);
  const bytes = typeof text === 'string' ? Buffer.from(text) : text;
  return SessionIndex.build(options.role === undefined ? file : { ...file, role: options.role }, () => bufferSource(bytes));
}
