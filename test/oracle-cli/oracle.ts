/**
 * The real Claude Code CLI as a test oracle: which transcript rows
 * `claude -p --resume <id>` sends to the model, run offline against a
 * loopback mock API by the cli-oracle tool (`../shared/tools/cli-oracle`
 * beside the repository, or `$CCLINT_CLI_ORACLE`). The binary itself is
 * installed into this folder by `npm run test:cli` (its own package.json and
 * lockfile); it is proprietary and a test-time oracle only, never a
 * dependency of cclint.
 *
 * A run costs about a second, so answers are cached by the file's bytes
 * under `.cache/` here (gitignored): re-running the differential after a
 * change to cclint re-asks the CLI only about files it has not seen.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(here, '../..');
export const ORACLE_DIR = process.env.CCLINT_CLI_ORACLE ?? path.resolve(REPO, '../shared/tools/cli-oracle');
const BINARY = path.join(here, 'node_modules', '@anthropic-ai', 'claude-code-linux-x64', 'claude');
const CACHE = path.join(here, '.cache');
/** Bump when the oracle or the way it is called changes: old answers are then ignored. */
const CACHE_VERSION = 'cli-2.1.330-v1';

export interface OracleRow {
  readonly uuid: string;
  readonly line: number;
  readonly type: string;
  readonly meta: boolean;
  readonly side: boolean;
  readonly silent: boolean;
  readonly how: 'mapped' | 'filled';
}

export interface OracleAnswer {
  readonly ok: boolean;
  readonly error?: string;
  readonly loaded: readonly OracleRow[];
  /** Every block of the request in order (see the oracle's README). */
  readonly fps: readonly string[];
  readonly seq?: string;
}

/** The count to compare with `resume.loaded`: distinct non-meta, non-sidechain rows sent. */
export function loadedUuids(answer: OracleAnswer): string[] {
  if (!answer.ok) return [];
  const out: string[] = [];
  const seen = new Set<string>();
  for (const r of answer.loaded) {
    if (r.meta || r.side || seen.has(r.uuid)) continue;
    seen.add(r.uuid);
    out.push(r.uuid);
  }
  return out;
}

export function oracleAvailable(): { ok: true } | { ok: false; why: string } {
  if (!fs.existsSync(path.join(ORACLE_DIR, 'cli-oracle.mjs'))) {
    return { ok: false, why: `no cli-oracle at ${ORACLE_DIR} (set CCLINT_CLI_ORACLE)` };
  }
  if (process.env.CLAUDE_BIN === undefined && !fs.existsSync(BINARY)) {
    return { ok: false, why: 'the Claude Code binary is not installed here (run `npm run test:cli`, which installs it)' };
  }
  return { ok: true };
}

type Probe = (file: string, options?: { timeoutMs?: number; sessionId?: string }) => Promise<Record<string, unknown>>;
type WithOracle = <T>(fn: (probe: Probe) => Promise<T>) => Promise<T>;

let withOracle: WithOracle | undefined;

async function load(): Promise<WithOracle> {
  process.env.CLAUDE_BIN ??= BINARY;
  withOracle ??= ((await import(path.join(ORACLE_DIR, 'cli-oracle.mjs'))) as { withOracle: WithOracle }).withOracle;
  return withOracle;
}

function cacheKey(bytes: Buffer, stemIsUuid: boolean): string {
  return createHash('sha256').update(CACHE_VERSION).update(stemIsUuid ? 'u' : 'p').update(bytes).digest('hex');
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Asks the CLI about each file (two at a time), answering from the cache
 * where it can. Files are given by path; their bytes decide the cache key.
 */
export async function askCli(files: readonly string[], jobs = 2): Promise<Map<string, OracleAnswer>> {
  fs.mkdirSync(CACHE, { recursive: true });
  const answers = new Map<string, OracleAnswer>();
  const todo: Array<{ file: string; key: string }> = [];
  for (const file of files) {
    const key = cacheKey(fs.readFileSync(file), UUID.test(path.basename(file, '.jsonl')));
    const cached = path.join(CACHE, `${key}.json`);
    if (fs.existsSync(cached)) answers.set(file, JSON.parse(fs.readFileSync(cached, 'utf8')) as OracleAnswer);
    else todo.push({ file, key });
  }
  if (todo.length === 0) return answers;
  const run = await load();
  await run(async (probe) => {
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < todo.length) {
        const { file, key } = todo[next++] as { file: string; key: string };
        let raw: Record<string, unknown>;
        try {
          raw = await probe(file, { timeoutMs: 120_000 });
        } catch (error) {
          raw = { ok: false, error: String(error) };
        }
        const answer: OracleAnswer = {
          ok: raw.ok === true,
          error: typeof raw.error === 'string' ? raw.error : undefined,
          loaded: (raw.loaded as OracleRow[] | undefined) ?? [],
          fps: (raw.fps as string[] | undefined) ?? [],
          seq: raw.seq as string | undefined,
        };
        // A timeout says nothing about the file: do not remember it.
        if (raw.timedOut !== true) fs.writeFileSync(path.join(CACHE, `${key}.json`), JSON.stringify(answer));
        answers.set(file, answer);
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(2, jobs)) }, worker));
  });
  return answers;
}

/** A user or assistant row of a transcript as the oracle reads it: its blocks' fingerprints (as in `fps`, without the role). */
export interface OracleFileRow {
  readonly line: number;
  readonly type: string;
  readonly meta: boolean;
  readonly side: boolean;
  /** A row the request cannot show even when loaded (an API error, thinking only). */
  readonly silent: boolean;
  readonly fps: readonly string[];
}

/** The oracle's own reading of a file's rows (its `readRows`), so that fingerprints are made the way `fps` are. */
export async function oracleRows(file: string): Promise<readonly OracleFileRow[]> {
  process.env.CLAUDE_BIN ??= BINARY;
  const module = (await import(path.join(ORACLE_DIR, 'cli-oracle.mjs'))) as { readRows: (file: string) => OracleFileRow[] };
  return module.readRows(file);
}

/** What the API validator says of the request the CLI sent (rules of level error or likely only). */
export interface RequestAnswer extends OracleAnswer {
  /** API rules the request breaks, as the validator names them (one per violation). */
  readonly violations: readonly string[];
}

/** The api-validator beside the CLI oracle (`../shared/tools/api-validator`, or `$CCLINT_API_VALIDATOR`). */
export const VALIDATOR_DIR = process.env.CCLINT_API_VALIDATOR ?? path.resolve(ORACLE_DIR, '..', 'api-validator');

export function validatorAvailable(): boolean {
  return fs.existsSync(path.join(VALIDATOR_DIR, 'validate.mjs'));
}

type Validator = {
  validateRequest: (body: unknown, options: { originals?: unknown }) => Array<{ rule: string; level: string }>;
  thinkingOriginals: (file: string) => unknown;
  bodiesOf: (json: unknown) => unknown[];
};

/**
 * Asks the CLI about each file and checks the request it sent with the API
 * validator. `original` is the session the file was made from: the
 * validator takes the thinking blocks' original texts and response ids
 * from it (an edit, or a response id given again, shows only against it).
 * Cached by the bytes of both files.
 */
export async function askCliRequests(entries: ReadonlyArray<{ file: string; original: string }>, jobs = 2): Promise<Map<string, RequestAnswer>> {
  fs.mkdirSync(CACHE, { recursive: true });
  const validator = (await import(path.join(VALIDATOR_DIR, 'validate.mjs'))) as Validator;
  const answers = new Map<string, RequestAnswer>();
  const todo: Array<{ file: string; original: string; key: string }> = [];
  for (const e of entries) {
    const key = createHash('sha256').update(`${CACHE_VERSION}-request-v1`).update(fs.readFileSync(e.file)).update('\0').update(fs.readFileSync(e.original)).digest('hex');
    const cached = path.join(CACHE, `${key}.json`);
    if (fs.existsSync(cached)) answers.set(e.file, JSON.parse(fs.readFileSync(cached, 'utf8')) as RequestAnswer);
    else todo.push({ ...e, key });
  }
  if (todo.length === 0) return answers;
  const run = await load();
  const dumps = fs.mkdtempSync(path.join(CACHE, 'dump-'));
  try {
    await run(async (probe) => {
      let next = 0;
      const worker = async (): Promise<void> => {
        while (next < todo.length) {
          const { file, original, key } = todo[next++] as { file: string; original: string; key: string };
          const dump = path.join(dumps, key);
          let raw: Record<string, unknown>;
          try {
            raw = await (probe as (f: string, o: object) => Promise<Record<string, unknown>>)(file, { timeoutMs: 120_000, dump });
          } catch (error) {
            raw = { ok: false, error: String(error) };
          }
          let violations: string[] = [];
          const dumped = path.join(dump, `${path.basename(file, '.jsonl')}.json`);
          if (raw.ok === true && fs.existsSync(dumped)) {
            const body = validator.bodiesOf(JSON.parse(fs.readFileSync(dumped, 'utf8')))[0];
            violations = validator
              .validateRequest(body, { originals: validator.thinkingOriginals(original) })
              .filter((v) => v.level === 'error' || v.level === 'likely')
              .map((v) => v.rule);
          }
          const answer: RequestAnswer = {
            ok: raw.ok === true,
            error: typeof raw.error === 'string' ? raw.error : undefined,
            loaded: (raw.loaded as OracleRow[] | undefined) ?? [],
            fps: (raw.fps as string[] | undefined) ?? [],
            seq: raw.seq as string | undefined,
            violations,
          };
          if (raw.timedOut !== true) fs.writeFileSync(path.join(CACHE, `${key}.json`), JSON.stringify(answer));
          answers.set(file, answer);
        }
      };
      await Promise.all(Array.from({ length: Math.max(1, Math.min(2, jobs)) }, worker));
    });
  } finally {
    fs.rmSync(dumps, { recursive: true, force: true });
  }
  return answers;
}
