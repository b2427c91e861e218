/**
 * The HTML report in a real headless Chromium (Debian's `chromium` driven by
 * playwright-core): no console error, no network request, the table there
 * without JavaScript, sorting and folding work, the drawn resumed path has
 * exactly `resume.loaded` messages for every session (as `check --format
 * json` counts them), and an orphaned branch is marked. Skipped, saying so,
 * where no Chromium is installed (`apt-get install chromium`; `.ci/run`
 * installs it).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, sandbox } from '../support/cli.js';
import { BREAK_KINDS, injectBreak } from '../support/breaks.js';
import { SHAPE_KINDS, plantShape } from '../support/api-shapes.js';
import { SHARED_CORPUS, realMainSessions } from '../support/corpus.js';
import { assistant, jsonl, user } from '../commands/fixture.js';

const CHROMIUM = '/usr/bin/chromium';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const available = fs.existsSync(CHROMIUM);
if (!available) console.warn(`report browser test skipped: no Chromium at ${CHROMIUM} (apt-get install -y chromium)`);

type Context = import('playwright-core').BrowserContext;
type Page = import('playwright-core').Page;

const box = sandbox();
let context: Context | undefined;
let profile: string | undefined;

beforeAll(async () => {
  if (!available) return;
  const { chromium } = await import('playwright-core');
  profile = fs.mkdtempSync(path.join(os.tmpdir(), 'cclint-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}, 120_000);

afterAll(async () => {
  await context?.close();
  if (profile !== undefined) fs.rmSync(profile, { recursive: true, force: true });
  box.cleanup();
});

interface Loaded {
  readonly page: Page;
  readonly errors: string[];
  readonly requests: string[];
}

async function open(file: string): Promise<Loaded> {
  const page = await (context as Context).newPage();
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('request', (r) => requests.push(r.url()));
  await page.goto(`file://${file}`, { waitUntil: 'load' });
  return { page, errors, requests };
}

/** `resume.loaded` and `resume.apiValid` per file, as `check --format json` reports them. */
async function loadedByFile(target: string): Promise<Map<string, { loaded: number; apiValid: boolean }>> {
  const r = await run(['check', '--format', 'json', target], { env: box.env, cwd: root });
  // A file that is not a transcript has `"resume": null`.
  const json = JSON.parse(r.stdout) as { results: Array<{ filePath: string; resume: { loaded: number; apiValid: boolean } | null }> };
  return new Map(
    json.results.flatMap((f) => (f.resume === null ? [] : [[f.filePath, { loaded: f.resume.loaded, apiValid: f.resume.apiValid }] as const])),
  );
}

async function report(target: string, extra: readonly string[] = []): Promise<string> {
  const out = path.join(box.root, `report-${path.basename(target)}-${Math.random().toString(36).slice(2)}.html`);
  const r = await run(['report', target, '-o', out, ...extra], { env: box.env, cwd: root });
  expect(r.code).toBe(0);
  return out;
}

/** Every session drawn: its file, the loaded rows drawn, plus rows a huge run leaves undrawn. */
async function drawnLoaded(page: Page): Promise<Array<{ file: string; drawn: number; apiValid: boolean; apiLine: boolean }>> {
  return page.$$eval('section.session', (sections) =>
    sections.map((s) => {
      const apiValid = s.getAttribute('data-api-valid') === 'true';
      const apiLine = s.querySelector('.meta.api') !== null;
      const drawn = s.querySelectorAll('.r[data-loaded]').length;
      let undrawn = 0;
      for (const u of Array.from(s.querySelectorAll('[data-loaded-undrawn]')) as Array<{ getAttribute(name: string): string | null }>) {
        undrawn += Number(u.getAttribute('data-loaded-undrawn'));
      }
      return { file: s.getAttribute('data-file') ?? '', drawn: drawn + undrawn, apiValid, apiLine };
    }),
  );
}

async function checkReport(target: string, extra: readonly string[] = []): Promise<Loaded> {
  const file = await report(target, extra);
  const loaded = await open(file);
  expect(loaded.errors).toEqual([]);
  expect(loaded.requests).toEqual([`file://${file}`]);
  const expected = await loadedByFile(target);
  const drawn = await drawnLoaded(loaded.page);
  expect(drawn.length).toBeGreaterThan(0);
  for (const d of drawn) {
    const want = expected.get(d.file);
    // The header says the request fails exactly where check says so.
    expect({ file: d.file, loaded: d.drawn, apiValid: d.apiValid, apiLine: d.apiLine }).toEqual({
      file: d.file,
      loaded: want?.loaded,
      apiValid: want?.apiValid,
      apiLine: want?.apiValid === false,
    });
  }
  // The table has an api column exactly when some session's request fails, its cells saying 400 on those rows.
  const invalid = drawn.filter((d) => !d.apiValid).length;
  const apiCells = await loaded.page.$$eval('table.sessions th', (ths) => ths.findIndex((th) => th.textContent === 'api'));
  if (invalid === 0) expect(apiCells).toBe(-1);
  else {
    const marked = await loaded.page.$$eval('table.sessions tbody tr', (rows, at) => rows.filter((r) => r.cells[at]?.textContent === '400').length, apiCells);
    expect(marked).toBe(invalid);
  }
  return loaded;
}

describe.skipIf(!available)('cclint report in headless Chromium', () => {
  it('the demo project: no console error, no request, resumed paths of resume.loaded messages, orphans marked, fixes shown', async () => {
    const { page } = await checkReport('fixtures/demo', ['--fixes']);
    const orphan = page.locator('section[data-session="08f63ab4-c21b-49dc-a052-2f9be0b09149"] .r[data-orphan]');
    expect(await orphan.count()).toBe(1);
    expect(await orphan.locator('.orphan').innerText()).toMatch(/^orphaned: parentUuid null; score \d\.\d\d; resume starts here and loses 6 earlier messages$/);
    expect(await orphan.locator('.orphan').evaluate((e) => (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(e).color)).toBe('rgb(207, 34, 46)');
    expect(await page.locator('details.fixes pre.diff').count()).toBe(2);
    await page.close();
  }, 120_000);

  it('the bundled corpus', async () => {
    (await checkReport('fixtures/corpus')).page.close();
  }, 180_000);

  it.skipIf(!SHARED_CORPUS.available)('the shared corpus', async () => {
    (await checkReport(SHARED_CORPUS.root)).page.close();
  }, 300_000);

  it('broken sessions: every kind of break planted in real sessions', async () => {
    const broken = path.join(box.root, 'broken');
    let n = 0;
    for (const source of realMainSessions().slice(0, 4)) {
      const text = fs.readFileSync(source.absolute, 'utf8');
      for (const kind of BREAK_KINDS) {
        const variant = injectBreak(text, kind, `${source.relative}:${kind}`);
        if (variant === undefined) continue;
        n++;
        const folder = path.join(broken, `-v${n}`);
        fs.mkdirSync(folder, { recursive: true });
        fs.writeFileSync(path.join(folder, `5e55${String(n).padStart(4, '0')}-0000-4000-8000-000000000000.jsonl`), variant.text);
      }
    }
    expect(n).toBeGreaterThan(50);
    const { page } = await checkReport(broken);
    expect(await page.locator('section.session').count()).toBe(n);
    expect(await page.locator('.r[data-orphan]').count()).toBeGreaterThan(0);
    await page.close();
  }, 300_000);

  it('sessions stuck on API Error 400: every shape planted in real sessions, marked in the table and the headers', async () => {
    const stuck = path.join(box.root, 'stuck');
    let n = 0;
    for (const source of realMainSessions().slice(0, 4)) {
      const text = fs.readFileSync(source.absolute, 'utf8');
      for (const kind of SHAPE_KINDS) {
        const variant = plantShape(text, kind, 1);
        if (variant === undefined) continue;
        n++;
        const folder = path.join(stuck, `-s${n}`);
        fs.mkdirSync(folder, { recursive: true });
        fs.writeFileSync(path.join(folder, `5e56${String(n).padStart(4, '0')}-0000-4000-8000-000000000000.jsonl`), variant.text);
      }
    }
    expect(n).toBeGreaterThanOrEqual(SHAPE_KINDS.length);
    const { page } = await checkReport(stuck);
    // checkReport compared each header with check; at least one is rejected, and its line names the API rule.
    const lines = await page.locator('.meta.api').allInnerTexts();
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(line).toMatch(/^resumed request fails at the API \(400\): [a-z-]+ \(line \d+\)/);
    expect(await page.locator('table.sessions th', { hasText: /^api$/ }).count()).toBe(1);
    await page.close();
  }, 300_000);

  it('sorts the table on a click, and reads without JavaScript', async () => {
    const file = await report('fixtures/demo');
    const { page } = await open(file);
    const ids = async (): Promise<string[]> => page.$$eval('table.sessions tbody tr', (rows) => rows.map((r) => r.cells[0]?.textContent ?? ''));
    expect(await ids()).toEqual(['30628611', '08f63ab4', 'b2fe508c', 'dde4dc22']);
    await page.click('table.sessions th:nth-child(5)'); // fidelity, lowest last after a descending click
    expect(await ids()).toEqual(['dde4dc22', '30628611', '08f63ab4', 'b2fe508c']);
    await page.close();
    // Without JavaScript: the same page with its script taken out.
    const html = fs.readFileSync(file, 'utf8');
    const withoutScript = path.join(box.root, 'no-script.html');
    fs.writeFileSync(withoutScript, html.replace(/<script>[\s\S]*?<\/script>/g, ''));
    const bare = await open(withoutScript);
    expect(await bare.page.locator('table.sessions tbody tr').count()).toBe(4);
    expect(await bare.page.locator('table.sessions tbody tr').first().innerText()).toContain('Add a login form');
    await bare.page.close();
  }, 120_000);

  it('folds a long linear run and opens it on a click', async () => {
    const project = path.join(box.configDir, 'projects', '-home-u-proj');
    fs.mkdirSync(project, { recursive: true });
    const rows: Array<Record<string, unknown>> = [user(1, null, 'start')];
    for (let n = 2; n <= 40; n++) rows.push(n % 2 === 0 ? assistant(n, n - 1, `answer ${n}`) : user(n, n - 1, `prompt ${n} <script>alert(1)</script>`));
    fs.writeFileSync(path.join(project, '5e550001-0000-4000-8000-000000000000.jsonl'), jsonl(rows));
    const { page, errors } = await checkReport(project);
    const more = page.locator('details.more');
    expect(await more.count()).toBe(1);
    expect(await page.locator('.r[data-loaded]:visible').count()).toBe(6);
    await more.locator('summary').click();
    expect(await page.locator('.r[data-loaded]:visible').count()).toBe(40);
    expect(await page.locator('script').count()).toBe(1);
    expect(await page.getByText('prompt 3 <script>alert(1)</script>').count()).toBe(1);
    expect(errors).toEqual([]);
    await page.close();
  }, 120_000);
});
