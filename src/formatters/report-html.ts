/**
 * The HTML report: one self-contained page (inline CSS and a little inline
 * JS, no network, works from file://). The sessions table is plain HTML,
 * readable without JS (JS only sorts it); each session's tree (the same
 * view model `cclint tree` draws, src/core/views/tree.ts) is drawn the way
 * `git log --graph` draws history, one small SVG per row so that long
 * linear runs fold into `<details>` (click to expand, no JS needed): the
 * resumed path highlighted, abandoned branches dimmed, orphaned branches in
 * red with what resume loses, compact boundaries marked, each finding under
 * its row. Every transcript string is HTML-escaped.
 */
import type { Conversation, MessagePart } from '../core/views/conversation.js';

export type { ReportFinding, SessionSection } from '../core/views/report.js';
import type { PlacedRow } from '../core/views/sessions.js';
import type { ReportFinding, SessionSection } from '../core/views/report.js';
import type { Glyph, TreeLine } from '../core/views/tree.js';
import { COLLAPSE_OVER } from '../core/views/tree.js';
import { escapeHtml as h } from './html-escape.js';
import { cut, dateTime, percent, rowText } from './text.js';
import { apiCell } from './sessions.js';
import { countText } from '../core/count-text.js';

export interface ReportModel {
  readonly title: string;
  readonly generated: string;
  readonly rows: readonly PlacedRow[];
  readonly anchors: ReadonlyMap<PlacedRow['row'], string>;
  /** Each session's section, in the rows' order: taken one at a time, as the page is written. */
  readonly sections: Iterable<string>;
  readonly notes: readonly string[];
}

/** Rows of a folded run drawn at each end; a run longer than twice this shows only its ends. */
export const DRAWN_EACH_END = 200;
/** Rows kept visible at each end of a folded run. */
const SHOWN_EACH_END = 3;
const ROW_H = 20;
const FORK_H = 12;
const COL_W = 14;

const CSS = `
:root{--green:#1a7f37;--red:#cf222e;--yellow:#bf8700;--dim:#8c959f;--fg:#1f2328;--bg:#fff;--line:#d0d7de}
*{box-sizing:border-box}
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg);margin:0;padding:16px 24px}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:32px 0 4px;border-top:1px solid var(--line);padding-top:16px}
.meta{color:#57606a;font-size:12px}
code,.mono,.tree,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
table.sessions{border-collapse:collapse;margin-top:12px;width:100%}
table.sessions th,table.sessions td{border-bottom:1px solid var(--line);padding:4px 8px;text-align:left;white-space:nowrap}
table.sessions th{cursor:pointer;user-select:none;background:#f6f8fa}
table.sessions td.num,table.sessions th.num{text-align:right}
table.sessions td.title{white-space:normal}
.bad{color:var(--red);font-weight:600}.warn{color:var(--yellow)}
.legend span{margin-right:14px}
.tree{margin-top:8px}
.r{display:flex;align-items:center;height:${ROW_H}px;white-space:nowrap}
.r svg,.fk svg,.more>summary svg{flex:none}
.r .id{color:var(--yellow);width:70px;flex:none}
.r .ty{width:80px;flex:none;color:#57606a}
.r .tm{width:150px;flex:none;color:var(--dim)}
.r .x{overflow:hidden;text-overflow:ellipsis}
.r.o{opacity:.45}
.r.s .x{font-weight:600}
.r.b .x{color:var(--red);font-weight:700}
.r.e .x{color:var(--yellow)}
.orphan{color:var(--red);font-weight:700;margin-right:6px}
.fk{display:flex;align-items:center;height:${FORK_H}px;color:var(--dim);font-size:11px}
.f{margin:0 0 2px 0;padding:1px 8px;font-size:12px;border-left:3px solid var(--red);background:#fff5f5;white-space:normal}
.f.warning{border-color:var(--yellow);background:#fffbea}.f.info{border-color:var(--dim);background:#f6f8fa}
details.more>summary{display:flex;align-items:center;height:${ROW_H}px;cursor:pointer;color:#0969da;list-style:none}
details.more>summary::-webkit-details-marker{display:none}
.undrawn{color:var(--dim);font-style:italic;height:${ROW_H}px;display:flex;align-items:center}
pre.diff{background:#f6f8fa;padding:8px;overflow:auto;max-height:480px}
pre.diff .a{color:var(--green)}pre.diff .d{color:var(--red)}pre.diff .h{color:#0969da}
.msg{border:1px solid var(--line);border-radius:6px;padding:8px 12px;margin:8px 0}
.msg h3{font-size:13px;margin:0 0 6px;color:#57606a}
.msg .text{white-space:pre-wrap;word-wrap:break-word}
.msg pre{white-space:pre-wrap;background:#f6f8fa;padding:6px;max-height:400px;overflow:auto}
svg .rail{stroke:var(--line);stroke-width:2}
svg .rail.s{stroke:var(--green)}
svg circle.s{fill:var(--green)}svg circle.o{fill:var(--dim)}svg circle.b{fill:var(--red)}svg rect.e{fill:var(--yellow)}
`;

const SCRIPT = `
(function(){
  var t=document.querySelector('table.sessions');if(!t)return;
  var ths=t.tHead.rows[0].cells;
  for(var i=0;i<ths.length;i++)(function(col,th){
    th.title='sort';
    th.addEventListener('click',function(){
      var desc=th.getAttribute('data-dir')!=='desc';
      for(var j=0;j<ths.length;j++)ths[j].removeAttribute('data-dir');
      th.setAttribute('data-dir',desc?'desc':'asc');
      var rows=Array.prototype.slice.call(t.tBodies[0].rows);
      rows.sort(function(a,b){
        var x=a.cells[col].getAttribute('data-v'),y=b.cells[col].getAttribute('data-v');
        var nx=parseFloat(x),ny=parseFloat(y);
        var c=(!isNaN(nx)&&!isNaN(ny))?nx-ny:(x<y?-1:x>y?1:0);
        return desc?-c:c;
      });
      rows.forEach(function(r){t.tBodies[0].appendChild(r);});
    });
  })(i,ths[i]);
})();
`;

function x(col: number): number {
  return col * COL_W + COL_W / 2;
}

/** The rails and node of one row: `|` for each open column left of it, then the node. */
function rowSvg(depth: number, width: number, glyph: Glyph | undefined, onPath: boolean): string {
  const parts: string[] = [];
  for (let c = 0; c < depth; c++) parts.push(`<line class="rail" x1="${x(c)}" y1="0" x2="${x(c)}" y2="${ROW_H}"/>`);
  const cx = x(depth);
  parts.push(`<line class="rail${onPath ? ' s' : ''}" x1="${cx}" y1="0" x2="${cx}" y2="${ROW_H}"/>`);
  if (glyph === '=') parts.push(`<rect class="e" x="${cx - 4}" y="${ROW_H / 2 - 4}" width="8" height="8" transform="rotate(45 ${cx} ${ROW_H / 2})"/>`);
  else if (glyph !== undefined) {
    const cls = glyph === '*' ? 's' : glyph === '!' ? 'b' : 'o';
    parts.push(`<circle class="${cls}" cx="${cx}" cy="${ROW_H / 2}" r="${glyph === '!' ? 5 : 4}"/>`);
  }
  return `<svg width="${width}" height="${ROW_H}" aria-hidden="true">${parts.join('')}</svg>`;
}

function forkSvg(depth: number, width: number): string {
  const parts: string[] = [];
  for (let c = 0; c <= depth; c++) parts.push(`<line class="rail" x1="${x(c)}" y1="0" x2="${x(c)}" y2="${FORK_H}"/>`);
  parts.push(`<line class="rail" x1="${x(depth)}" y1="0" x2="${x(depth + 1)}" y2="${FORK_H}"/>`);
  return `<svg width="${width}" height="${FORK_H}" aria-hidden="true">${parts.join('')}</svg>`;
}

const GLYPH_CLASS: Readonly<Record<Glyph, string>> = { '*': 's', o: 'o', '!': 'b', '=': 'e' };

function timeText(time: number): string {
  return Number.isNaN(time) ? '—' : new Date(time).toISOString().replace('T', ' ').slice(0, 19);
}

type RecordLine = Extract<TreeLine, { kind: 'record' }>;

/** The tree of one session as HTML rows. */
export function treeHtml(s: SessionSection): string {
  const width = COL_W * (s.tree.maxDepth + 2);
  const byLine = new Map<number, ReportFinding[]>();
  // Info findings (legal shapes) are counted in the header, not drawn.
  for (const f of s.findings) {
    if (f.severity === 'info') continue;
    const list = byLine.get(f.line);
    if (list === undefined) byLine.set(f.line, [f]);
    else list.push(f);
  }
  const drawnLines = new Set<number>();
  const recordRow = (line: RecordLine): string => {
    const { record: r, glyph, orphan } = line.node;
    drawnLines.add(r.line);
    const loaded = s.loaded.has(r);
    const label =
      orphan === undefined
        ? ''
        : `<span class="orphan">orphaned: ${h(orphan.reason)}; score ${orphan.score.toFixed(2)}; ` +
          `${orphan.cutsHistory ? `resume starts here and loses ${orphan.lost} earlier message${orphan.lost === 1 ? '' : 's'}` : `resume loses its ${orphan.lost} message${orphan.lost === 1 ? '' : 's'}`}</span>`;
    const text =
      glyph === '='
        ? r.subtype === 'compact_boundary'
          ? 'compacted'
          : `compacted (${h(r.subtype ?? 'boundary')})`
        : h(rowText(r, 140));
    const findings = (byLine.get(r.line) ?? [])
      .map((f) => `<div class="f ${h(f.severity)}" data-rule="${h(f.ruleId)}"><b>${h(f.severity)}</b> ${h(f.ruleId)}: ${h(f.message)}</div>`)
      .join('');
    return (
      `<div class="r ${GLYPH_CLASS[glyph]}"${loaded ? ' data-loaded="1"' : ''}${orphan !== undefined ? ' data-orphan="1"' : ''} data-line="${r.line}">` +
      `${rowSvg(line.depth, width, glyph, glyph === '*')}<span class="id">${h((r.uuid ?? '').slice(0, 8))}</span>` +
      `<span class="ty">${h(r.type)}</span><span class="tm">${timeText(r.time)}</span><span class="x">${label}${text}</span></div>${findings}`
    );
  };
  const out: string[] = [];
  const lines = s.tree.lines;
  const foldable = (l: TreeLine | undefined, depth: number, glyph: Glyph): l is RecordLine =>
    l !== undefined && l.kind === 'record' && l.depth === depth && l.node.glyph === glyph && (glyph === '*' || glyph === 'o') && !byLine.has(l.node.record.line);
  let i = 0;
  while (i < lines.length) {
    const line = lines[i] as TreeLine;
    if (line.kind === 'fork') {
      out.push(`<div class="fk">${forkSvg(line.depth, width)}${line.label === undefined ? '' : `(${h(line.label)})`}</div>`);
      i++;
      continue;
    }
    if (line.kind === 'more') {
      i++;
      continue;
    }
    // A run of plain rows in one column: its middle folds.
    let j = i;
    while (foldable(lines[j], line.depth, line.node.glyph)) j++;
    const run = lines.slice(i, j) as RecordLine[];
    if (run.length <= COLLAPSE_OVER) {
      out.push(recordRow(line));
      i++;
      continue;
    }
    for (const l of run.slice(0, SHOWN_EACH_END)) out.push(recordRow(l));
    const middle = run.slice(SHOWN_EACH_END, run.length - SHOWN_EACH_END);
    const inner: string[] = [];
    if (middle.length <= 2 * DRAWN_EACH_END) for (const l of middle) inner.push(recordRow(l));
    else {
      for (const l of middle.slice(0, DRAWN_EACH_END)) inner.push(recordRow(l));
      const hidden = middle.slice(DRAWN_EACH_END, middle.length - DRAWN_EACH_END);
      const hiddenLoaded = hidden.filter((l) => s.loaded.has(l.node.record)).length;
      inner.push(
        `<div class="undrawn" data-undrawn="${hidden.length}" data-loaded-undrawn="${hiddenLoaded}">${rowSvg(line.depth, width, undefined, line.node.glyph === '*')}` +
          `… ${countText(hidden.length)} rows not drawn, to keep the page small (\`cclint tree --all\` lists them)</div>`,
      );
      for (const l of middle.slice(-DRAWN_EACH_END)) inner.push(recordRow(l));
    }
    out.push(
      `<details class="more"><summary>${rowSvg(line.depth, width, undefined, line.node.glyph === '*')}… ${countText(middle.length)} more (click to expand)</summary>${inner.join('')}</details>`,
    );
    for (const l of run.slice(-SHOWN_EACH_END)) out.push(recordRow(l));
    i = j;
  }
  if (lines.length === 0) out.push('<p class="meta">(no conversation records)</p>');
  const elsewhere = s.findings.filter((f) => f.severity !== 'info' && !drawnLines.has(f.line));
  const rest =
    elsewhere.length === 0
      ? ''
      : `<h3>Findings on lines not drawn</h3>${elsewhere
          .map((f) => `<div class="f ${h(f.severity)}" data-rule="${h(f.ruleId)}"><b>${h(f.severity)}</b> line ${f.line} ${h(f.ruleId)}: ${h(f.message)}</div>`)
          .join('')}`;
  return `<div class="tree">${out.join('\n')}</div>${rest}`;
}

function diffHtml(diff: string): string {
  const lines = diff.split('\n').map((l) => {
    const cls = l.startsWith('+++') || l.startsWith('---') ? 'h' : l.startsWith('+') ? 'a' : l.startsWith('-') ? 'd' : l.startsWith('@@') ? 'h' : '';
    return cls === '' ? h(l) : `<span class="${cls}">${h(l)}</span>`;
  });
  return `<details class="fixes" open><summary>What <code>cclint fix</code> would change (dry run; nothing was written)</summary><pre class="diff">${lines.join('\n')}</pre></details>`;
}

function partHtml(p: MessagePart, thinking: boolean): string {
  switch (p.kind) {
    case 'text':
      return p.text.trim() === '' ? '' : `<div class="text">${h(p.text.trim())}</div>`;
    case 'thinking':
      return thinking ? `<details><summary>Thinking</summary><pre>${h(p.text)}</pre></details>` : '';
    case 'tool-use':
      return `<details><summary>Tool call: ${h(p.name)}</summary><pre>${h(p.input)}</pre></details>`;
    case 'tool-result':
      return `<details><summary>Tool result${p.isError ? ' (error)' : ''}</summary><pre>${h(p.text)}</pre></details>`;
    case 'other':
      return `<div class="meta">[${h(p.type)}]</div>`;
  }
}

/** The conversation: its heading, then one message at a time, a line apart. */
function* conversationHtml(c: Conversation, thinking: boolean): Generator<string> {
  yield `<h3>The conversation (${c.messageCount} message${c.messageCount === 1 ? '' : 's'})</h3>`;
  let i = 0;
  for (const m of c.messages) {
    const who = m.type === 'user' ? 'User' : m.type === 'assistant' ? 'Claude' : m.type;
    yield `${i === 0 ? '' : '\n'}<div class="msg" data-uuid="${h(m.uuid ?? '')}"><h3>${++i}. ${h(who)} · ${timeText(m.time)} UTC</h3>${m.parts.map((p) => partHtml(p, thinking)).join('')}</div>`;
  }
}

/** The header line saying the resumed request fails at the API, with each rule and row; empty when it passes. */
function apiHtml(s: SessionSection): string {
  if (s.resume.apiValid !== false) return '';
  const rules = (s.resume.apiViolations ?? []).map((v) => `<code>${h(v.rule)}</code> (line ${v.line})`);
  return `<div class="meta api"><span class="bad">resumed request fails at the API (400)${rules.length > 0 ? `: ${rules.join(', ')}` : ''}</span></div>`;
}

/** One session's section: header, resume figures, findings, the tree, optionally the diff and the conversation. */
export function sessionSectionHtml(s: SessionSection): string {
  return [...sessionSectionPieces(s)].join('');
}

/** {@link sessionSectionHtml} in pieces: everything up to the conversation, then its messages one at a time. */
function* sessionSectionPieces(s: SessionSection): Generator<string> {
  const loss = s.resume.total - s.resume.loaded;
  yield [
    `<section class="session" id="${h(s.anchor)}" data-session="${h(s.sessionId)}" data-file="${h(s.displayPath)}" data-resume-loaded="${s.resume.loaded}"${s.resume.apiValid === undefined ? '' : ` data-api-valid="${s.resume.apiValid}"`}>`,
    `<h2>${h(s.title)}</h2>`,
    `<div class="meta mono">${h(s.displayPath)} · <code>${h(s.command)}</code></div>`,
    `<div class="meta">resume loads ${s.resume.loaded} of ${s.resume.total} message${s.resume.total === 1 ? '' : 's'} (${percent(s.resume.fidelity)})` +
      `${loss > 0 ? ` · <span class="bad">${loss} lost on resume</span>` : ''} · score ${s.score.toFixed(2)} · ` +
      `${s.tree.records} records, ${s.tree.forks} fork${s.tree.forks === 1 ? '' : 's'}, ` +
      `${s.findings.filter((f) => f.severity === 'info').length} info finding(s) not drawn · ` +
      `${s.tree.orphans > 0 ? `<span class="bad">${s.tree.orphans} orphaned branch${s.tree.orphans === 1 ? '' : 'es'}</span>` : '0 orphaned branches'}</div>`,
    apiHtml(s),
    `<div class="meta legend"><span style="color:var(--green)">● loaded on resume</span><span style="color:var(--dim)">● not loaded</span>` +
      `<span style="color:var(--red)">● orphaned branch</span><span style="color:var(--yellow)">◆ compact boundary</span></div>`,
    s.diff === undefined ? '' : diffHtml(s.diff),
    treeHtml(s),
    '',
  ].join('\n');
  if (s.conversation !== undefined) yield* conversationHtml(s.conversation, s.thinking === true);
  yield '\n</section>';
}

function cell(text: string, value: string | number, cls = ''): string {
  const v = typeof value === 'number' ? (Number.isNaN(value) ? '' : String(value)) : value;
  return `<td${cls === '' ? '' : ` class="${cls}"`} data-v="${h(v)}">${text}</td>`;
}

/** The sessions table: a plain HTML table (JS only adds sorting). */
export function sessionsTableHtml(rows: readonly PlacedRow[], anchors: ReadonlyMap<PlacedRow['row'], string>): string {
  if (rows.length === 0) return '<p>No sessions found.</p>';
  const showProject = new Set(rows.map((p) => p.row.projectDir)).size > 1;
  // The api column (`400`: the resumed request would be rejected) only when some session's would.
  const showApi = rows.some((p) => p.row.apiValid === false);
  const head = [
    'session',
    ...(showProject ? ['project'] : []),
    'title',
    'last activity (UTC)',
    'records',
    'fidelity',
    ...(showApi ? ['api'] : []),
    'score',
    'errors',
    'warnings',
  ];
  const numeric = new Set(['records', 'fidelity', 'api', 'score', 'errors', 'warnings']);
  const title = (c: string): string => (c === 'api' ? ' title="400: the first request after claude --resume would be rejected (API Error 400)"' : '');
  const body = rows.map(({ row, depth }) => {
    const anchor = anchors.get(row);
    const marker = depth === 0 ? '' : `${'&nbsp;&nbsp;'.repeat(depth - 1)}↳ `;
    const title = anchor === undefined ? h(cut(row.title, 120)) : `<a href="#${h(anchor)}">${h(cut(row.title, 120))}</a>`;
    return (
      `<tr>${cell(`<code>${h((row.sessionId ?? '-').slice(0, 8))}</code>`, row.sessionId ?? '')}` +
      (showProject ? cell(h(row.projectFolderName), row.projectFolderName) : '') +
      cell(marker + title, row.title.toLowerCase(), 'title') +
      cell(dateTime(row.lastTime), row.lastTime) +
      cell(countText(row.records), row.records, 'num') +
      cell(percent(row.fidelity), row.fidelity, row.fidelity < 1 ? 'num bad' : 'num') +
      (showApi ? cell(apiCell(row.apiValid), row.apiValid === false ? 1 : 0, row.apiValid === false ? 'num bad' : 'num') : '') +
      cell(row.score.toFixed(2), row.score, row.score >= 0.5 ? 'num bad' : 'num') +
      cell(String(row.errors), row.errors, row.errors > 0 ? 'num bad' : 'num') +
      cell(String(row.warnings), row.warnings, row.warnings > 0 ? 'num warn' : 'num') +
      `</tr>`
    );
  });
  return `<table class="sessions"><thead><tr>${head.map((c) => `<th${numeric.has(c) ? ' class="num"' : ''}${title(c)}>${c}</th>`).join('')}</tr></thead><tbody>\n${body.join('\n')}\n</tbody></table>`;
}

/** A whole page around a body, in pieces: its head, `body` as it comes, its end. */
function* pagePieces(title: string, body: Iterable<string>): Generator<string> {
  yield [
    '<!DOCTYPE html>',
    '<html lang="en"><head><meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${h(title)}</title><style>${CSS}</style></head><body>`,
    '',
  ].join('\n');
  yield* body;
  yield `\n<script>${SCRIPT}</script>\n</body></html>\n`;
}

/** The parts one line apart. */
function* linesApart(parts: Iterable<string>): Generator<string> {
  let first = true;
  for (const part of parts) {
    yield first ? part : `\n${part}`;
    first = false;
  }
}

/**
 * The page of one session (`export --format html`): its section, the
 * conversation included, in pieces, one message at a time.
 */
export function sessionPageHtml(title: string, section: SessionSection): Generator<string> {
  return pagePieces(title, sessionSectionPieces(section));
}

/**
 * The report: heading, the sessions table, then one section per session,
 * in pieces: the page of a projects folder of several GB is hundreds of MB,
 * and one string of it (with the copies joining makes) was most of the
 * memory `report` took.
 */
export function reportHtml(model: ReportModel): Generator<string> {
  return pagePieces(model.title, linesApart(reportBody(model)));
}

function* reportBody(model: ReportModel): Generator<string> {
  yield `<h1>${h(model.title)}</h1>`;
  yield `<div class="meta">generated ${h(model.generated)} by cclint · ${model.rows.length} session${model.rows.length === 1 ? '' : 's'} · times UTC</div>`;
  yield model.notes.length === 0 ? '' : `<ul class="meta">${model.notes.map((n) => `<li>${h(n)}</li>`).join('')}</ul>`;
  yield sessionsTableHtml(model.rows, model.anchors);
  yield* model.sections;
}
