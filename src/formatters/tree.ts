/**
 * Renders the tree view model (src/core/views/tree.ts) as text: a header,
 * a legend and one line per graph line. Every transcript string is escaped.
 */
import type { Glyph, SessionTree } from '../core/views/tree.js';
import { escapeForTerminal } from '../escape.js';
import { type Paint, type Style, plural, rowText, timeColumn } from './text.js';
import { countText } from '../core/count-text.js';

export interface TreeRenderOptions {
  readonly paint: Paint;
  /** Characters available for a row's excerpt, or a function of the width the graph and times take. */
  readonly textWidth: number | ((graphAndTimeWidth: number) => number);
}

const GLYPH_STYLE: Readonly<Record<Glyph, Style>> = { '*': 'green', o: 'dim', '!': ['red', 'bold'], '=': 'yellow' };

/** Columns the graph takes for a tree, so that the text after it lines up. */
export function graphWidth(tree: SessionTree): number {
  return 2 * (tree.maxDepth + 1);
}

/** The text form: a header, a legend and one line per graph line. */
export function renderTree(displayPath: string, tree: SessionTree, options: TreeRenderOptions): string {
  const { paint } = options;
  const width = graphWidth(tree);
  const rails = (depth: number): string => '| '.repeat(depth);
  const time = timeColumn(tree.lines.flatMap((line) => (line.kind === 'record' ? [line.node.record.time] : [])));
  const textWidth = typeof options.textWidth === 'number' ? options.textWidth : options.textWidth(width + time.width);
  const out: string[] = [
    `${escapeForTerminal(displayPath)}: ${tree.subagent ? "a subagent's transcript, which `claude --resume` does not load; " : ''}` +
      `${plural(tree.records, 'record')}, ${plural(tree.forks, 'fork')}, ${plural(tree.orphans, 'orphaned branch', 'orphaned branches')}; oldest first, times UTC`,
    tree.subagent
      ? `legend: * the subagent's thread  o not on it  ! orphaned branch (score 0-1)  = compacted`
      : `legend: * loaded on resume  o not loaded  ! orphaned branch (score 0-1)  = compacted`,
  ];
  for (const line of tree.lines) {
    if (line.kind === 'fork') {
      const label = line.label === undefined ? '' : `  ${paint('dim', `(${line.label})`)}`;
      out.push(`${`${rails(line.depth)}|\\`.trimEnd()}${label}`);
    } else if (line.kind === 'more') {
      out.push(`${`${rails(line.depth)}:`.padEnd(width + 1)}${paint('dim', `… ${countText(line.count)} more`)}`);
    } else {
      const { record: r, glyph, orphan } = line.node;
      const graph = `${rails(line.depth)}${paint(GLYPH_STYLE[glyph], glyph)}${' '.repeat(width - 2 * line.depth - 1)}`;
      const id = paint('yellow', escapeForTerminal((r.uuid ?? '').slice(0, 8)).padEnd(8));
      const orphanLabel =
        orphan === undefined ? undefined : `[orphaned: ${escapeForTerminal(orphan.reason)}; score ${orphan.score.toFixed(2)}]`;
      const label = orphanLabel === undefined ? '' : `${paint('red', orphanLabel)} `;
      const labelLength = orphanLabel === undefined ? 0 : orphanLabel.length + 1;
      const boundary = r.subtype === 'compact_boundary' ? 'compacted' : `compacted (${escapeForTerminal(r.subtype ?? 'boundary')})`;
      const text = glyph === '=' ? boundary : rowText(r, Math.max(10, textWidth - labelLength));
      out.push(`${graph} ${id} ${escapeForTerminal(r.type).padEnd(10)} ${paint('dim', time.format(r.time))}  ${label}${text}`.trimEnd());
    }
  }
  if (tree.lines.length === 0) out.push('(no conversation records)');
  return `${out.join('\n')}\n`;
}
