/**
 * The interactive side of `cclint fix`: each candidate fix is shown as a
 * hunk at its real line numbers and the person answers the way `git add -p`
 * asks. Unsafe fixes are offered too, marked, and an empty answer declines
 * them; a guessed relink lists its candidate rows so the person can pick one.
 */
import { styleText } from 'node:util';
import type { SessionIndex } from '../core/session-index.js';
import type { Finding, Fix, FixAlternative, RecordEdit } from '../core/types.js';
import { InterruptedError } from '../core/errors.js';
import { escapeForTerminal } from '../escape.js';
import type { Io } from '../io.js';
import type { PlanPolicy } from '../repair/plan.js';

export const PROMPT_HELP = `y - apply this fix
n - do not apply this fix (an unsafe fix is not applied when you just press Enter)
1-9 - apply the fix with the candidate row of that number, when several are listed
a - apply this fix and every later fix of the same rule in this file
d - do not apply this fix or any later fix of the same rule in this file
q - quit; do not apply this fix or any later one (fixes already accepted in this file are written)
? - print help`;

async function enquirerAsk(question: string): Promise<string> {
  const { default: enquirer } = (await import('enquirer')) as unknown as {
    default: { prompt(q: object): Promise<Record<string, string>> };
  };
  try {
    const answer = await enquirer.prompt({ type: 'input', name: 'answer', message: question });
    return answer.answer ?? '';
  } catch {
    throw new InterruptedError(); // enquirer rejects on Ctrl-C
  }
}

type DiffModule = typeof import('../repair/diff.js');
type Paint = (style: 'red' | 'green' | 'cyan' | 'bold' | 'yellow', s: string) => string;

/** The changed lines of one fix at their line numbers in the current text, shortened and escaped. */
function fixHunk(diff: DiffModule, index: SessionIndex, edits: readonly RecordEdit[], paint: Paint): string {
  const patch = diff.editsPatch(index.file.displayPath, edits, (n) => index.lineText(n), index.stats.lineCount);
  return diff.colorDiff(escapeForTerminal(diff.renderPatch(patch), { multiline: true }), paint);
}

function candidateList(alternatives: readonly FixAlternative[]): string {
  return alternatives
    .map((a, i) => {
      const when = a.target.timestamp === undefined ? 'no time' : a.target.timestamp;
      const excerpt = a.target.excerpt === '' ? '' : ` "${a.target.excerpt}"`;
      return escapeForTerminal(`  ${i + 1}) line ${a.target.line}, ${a.target.type}, ${when}${excerpt}${i === 0 ? '  (proposed)' : ''}`);
    })
    .join('\n');
}

export interface InteractivePolicy {
  readonly decide: NonNullable<PlanPolicy['decide']>;
  /** Whether the person answered `q`. */
  quit(): boolean;
}

export function interactivePolicy(io: Io, color: boolean, diff: DiffModule): InteractivePolicy {
  const ask = io.ask ?? enquirerAsk;
  const ruleChoice = new Map<string, boolean>();
  let quit = false;
  const paint: Paint = (style, s) => (color ? styleText(style, s, { validateStream: false }) : s);
  return {
    quit: () => quit,
    decide: async (finding: Finding, fix: Fix, edits: readonly RecordEdit[], index: SessionIndex) => {
      if (quit) return false;
      const key = `${index.file.path}\u0000${finding.ruleId}`;
      const remembered = ruleChoice.get(key);
      if (remembered !== undefined) return remembered;
      const unsafe = fix.applicability === 'unsafe';
      const alternatives = fix.alternatives !== undefined && fix.alternatives.length > 1 ? fix.alternatives : undefined;
      io.stdout.write(
        `\n${escapeForTerminal(`${index.file.displayPath}:${finding.line}  ${finding.ruleId}  ${finding.message}`)}\n` +
          `${unsafe ? `${paint('yellow', '[unsafe]')} ` : ''}${escapeForTerminal(fix.title)}\n` +
          (alternatives === undefined ? '' : `The right row is a guess; candidates:\n${candidateList(alternatives)}\n`) +
          `${fixHunk(diff, index, edits, paint)}\n`,
      );
      const choices = `${unsafe ? 'y,N' : 'y,n'}${alternatives === undefined ? '' : `,1-${alternatives.length}`},a,d,q,?`;
      for (;;) {
        const answer = (await ask(`Apply this ${unsafe ? 'unsafe ' : ''}fix? [${choices}]`)).trim().toLowerCase();
        if (answer === 'y') return true;
        if (answer === 'n' || (answer === '' && unsafe)) return false;
        if (alternatives !== undefined && /^[1-9]$/.test(answer)) {
          const picked = alternatives[Number(answer) - 1];
          if (picked !== undefined) return Number(answer) === 1 ? true : picked;
        }
        if (answer === 'a' || answer === 'd') {
          ruleChoice.set(key, answer === 'a');
          return answer === 'a';
        }
        if (answer === 'q') {
          quit = true;
          return false;
        }
        io.stdout.write(`${PROMPT_HELP}\n`);
      }
    },
  };
}
