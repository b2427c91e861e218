/**
 * Masks secrets in text by well-known patterns, for `export --redact`: API
 * keys (Anthropic `sk-ant-…`, OpenAI-style `sk-…`, Google `AIza…`), AWS
 * access key ids and secret keys, GitHub and Slack tokens, private key
 * blocks, passwords in URLs, bearer tokens, and `password=`/`secret:`
 * style assignments. Each secret becomes `[REDACTED:<kind>]`. Patterns,
 * not proof: a secret of an unknown shape passes, and a long random string
 * after `Bearer` is masked whatever it is.
 */

interface Pattern {
  readonly kind: string;
  readonly re: RegExp;
  /** The capture group holding the secret (0: the whole match). */
  readonly group?: number;
}

const PATTERNS: readonly Pattern[] = [
  { kind: 'private-key', re: /-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----/g },
  { kind: 'anthropic-key', re: /\bsk-ant-[A-Za-z0-9_-]{16,}/g },
  { kind: 'api-key', re: /\bsk-(?:proj-|live-|test-)?[A-Za-z0-9_-]{20,}/g },
  { kind: 'google-key', re: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { kind: 'aws-access-key', re: /\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b/g },
  { kind: 'aws-secret-key', re: /(aws_?secret_?access_?key["']?\s*[:=]\s*["']?)([A-Za-z0-9/+=]{40})/gi, group: 2 },
  { kind: 'github-token', re: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})/g },
  { kind: 'slack-token', re: /\bxox[abposr]-[A-Za-z0-9-]{10,}/g },
  { kind: 'url-password', re: /(\b[a-z][a-z0-9+.-]*:\/\/[^\s:/@"'<>]+:)([^\s@/"'<>]+)(@)/gi, group: 2 },
  { kind: 'bearer-token', re: /(\bBearer\s+)([A-Za-z0-9._~+/-]{16,}=*)/g, group: 2 },
  // A quoted value is masked whole, spaces and all (`"password": "p@ss w0rd!"`);
  // a bare one up to the first space, quote or separator.
  { kind: 'password', re: /(\b(?:password|passwd|pwd|secret|api_?key|access_?token|auth_?token)["']?\s*[:=]\s*)(")([^"\n]{4,200})(")/gi, group: 3 },
  { kind: 'password', re: /(\b(?:password|passwd|pwd|secret|api_?key|access_?token|auth_?token)["']?\s*[:=]\s*)(')([^'\n]{4,200})(')/gi, group: 3 },
  { kind: 'password', re: /(\b(?:password|passwd|pwd|secret|api_?key|access_?token|auth_?token)["']?\s*[:=]\s*["']?)([^\s"',;&<>]{8,})/gi, group: 2 },
];

export interface Redaction {
  readonly text: string;
  /** How many secrets were masked, in all. */
  readonly count: number;
  /** How many of each kind. */
  readonly byKind: ReadonlyMap<string, number>;
}

const MASK = /^\[REDACTED:[a-z-]+\]$/;

/** `text` with every secret the patterns know masked. */
export function redact(text: string): Redaction {
  const byKind = new Map<string, number>();
  let out = text;
  for (const { kind, re, group = 0 } of PATTERNS) {
    out = out.replace(re, (...args: unknown[]) => {
      const groups = args.slice(0, -2).filter((a) => typeof a === 'string' || a === undefined) as Array<string | undefined>;
      const whole = groups[0] ?? '';
      const secret = groups[group] ?? '';
      if (secret === '' || MASK.test(secret) || secret.startsWith('[REDACTED:')) return whole;
      byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
      if (group === 0) return `[REDACTED:${kind}]`;
      return groups.slice(1).map((g, i) => (i + 1 === group ? `[REDACTED:${kind}]` : (g ?? ''))).join('');
    });
  }
  let count = 0;
  for (const n of byKind.values()) count += n;
  return { text: out, count, byKind };
}

/**
 * The counts of the redactions of a text's pieces (a text too big for one
 * string, masked a piece at a time), as one redaction of the whole text
 * gives them: kinds in the patterns' order.
 */
export class RedactionTally {
  private readonly counts = new Map<string, number>();

  add(r: Redaction): void {
    for (const [kind, n] of r.byKind) this.counts.set(kind, (this.counts.get(kind) ?? 0) + n);
  }

  get count(): number {
    let count = 0;
    for (const n of this.counts.values()) count += n;
    return count;
  }

  get byKind(): ReadonlyMap<string, number> {
    return new Map(PATTERNS.flatMap(({ kind }) => (this.counts.has(kind) ? [[kind, this.counts.get(kind) as number] as const] : [])));
  }
}
