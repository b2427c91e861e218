import { escapeForTerminal } from '../escape.js';

/**
 * Transcript text for HTML: characters that would act on a terminal shown
 * as visible escapes first (the page may be printed to one), then `&`,
 * `<`, `>`, `"` and `'` as character references.
 */
export function escapeHtml(text: string): string {
  return escapeForTerminal(text, { multiline: true }).replace(/[&<>"']/g, (c) =>
    c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c === '"' ? '&quot;' : '&#39;',
  );
}
