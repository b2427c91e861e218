/**
 * The HTML report comes in pieces: the page of a projects folder of several
 * GB is hundreds of MB, and writing it as one string took most of the
 * memory `report` used (443 MB for the bench's 321 MB tree; 763 MB for twice
 * that tree, against 210 and 289 MB in pieces).
 */
import { describe, expect, it } from 'vitest';
import { reportHtml } from '../../src/formatters/report-html.js';

describe('reportHtml', () => {
  it('asks for each section only as it writes it, and joins to one page whose body is the heading, the table and the sections, a line apart', () => {
    const asked: number[] = [];
    const written: string[] = [];
    function* sections(): Generator<string> {
      for (let i = 1; i <= 3; i++) {
        asked.push(i);
        yield `<section id="s${i}">${'x'.repeat(i)}</section>`;
      }
    }
    const pieces = reportHtml({ title: 'T <&>', generated: 'now', rows: [], anchors: new Map(), sections: sections(), notes: ['a note'] });
    for (const piece of pieces) {
      written.push(piece);
      // Every section asked for so far is already in what was written: none is held back.
      for (const i of asked) expect(written.join('')).toContain(`<section id="s${i}">`);
    }
    expect(asked).toEqual([1, 2, 3]);
    const text = written.join('');
    expect(text.startsWith('<!DOCTYPE html>\n')).toBe(true);
    expect(text.endsWith('</body></html>\n')).toBe(true);
    expect(text).toContain('<title>T &lt;&amp;&gt;</title>');
    expect(text).toContain('<h1>T &lt;&amp;&gt;</h1>\n<div class="meta">generated now by cclint · 0 sessions · times UTC</div>\n<ul class="meta"><li>a note</li></ul>\n');
    expect(text).toContain('</section>\n<section id="s2">xx</section>\n<section id="s3">xxx</section>\n<script>');
  });
});
