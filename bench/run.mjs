#!/usr/bin/env node
/**
 * Benchmark: `cclint check` against the bare read-and-parse floor, measured in
 * the same run on the same files. Plain Node ESM, no dependencies.
 *
 *   npm run bench                       # build, then: node bench/run.mjs
 *   node bench/run.mjs --size-mb 320 --big-mb 720 --runs 3 --corpus ../shared/corpus
 *   node bench/run.mjs --skip-big       # tree only
 *   node bench/run.mjs --rebuild        # throw away bench/.tree and build it again
 *
 * Everything it writes goes below bench/.tree/ (gitignored): the tree, the big
 * session file, `/usr/bin/time` outputs and results.json. See bench/README.md.
 */
import fs from 'node:fs';
import path from 'node:path';
import os from 'node:os';
import crypto from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SELF = fileURLToPath(import.meta.url);
const REPO = path.resolve(path.dirname(SELF), '..');
const TREE = path.join(REPO, 'bench', '.tree');
const PROJECTS = path.join(TREE, 'projects');
const BIG_DIR = path.join(TREE, 'big');
const MANIFEST = path.join(TREE, 'manifest.json');
const RESULTS = path.join(TREE, 'results.json');
// CCLINT_HOME of the --cache runs: below bench/.tree, outside both inputs.
const CCLINT_HOME = path.join(TREE, 'cclint-home');
const CLI = path.join(REPO, 'dist', 'cli.js');
const MB = 1024 * 1024; // sizes are MiB, so "720 MB" is at least 720 × 2^20 bytes
const TREE_FORMAT = 2; // bump when the layout of the generated tree changes
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

// ---------------------------------------------------------------- floor child
// `node bench/run.mjs --floor-child <file-or-dir>`: the cheapest honest
// read-and-parse of every .jsonl below the path. Runs as its own process so it
// pays the same process start and is measured the same way as cclint.
if (process.argv[2] === '--floor-child') {
  floorChild(process.argv[3]);
  process.exit(0);
}
// `node bench/run.mjs --walk-child <dir>`: walks the folder and stats every
// .jsonl, reading nothing: the least any run that must notice a change pays.
if (process.argv[2] === '--walk-child') {
  walkChild(process.argv[3]);
  process.exit(0);
}

function walkChild(target) {
  let files = 0;
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && e.name.endsWith('.jsonl')) {
        fs.statSync(p);
        files++;
      }
    }
  };
  if (fs.statSync(target).isDirectory()) walk(target);
  else fs.statSync(target);
  process.stdout.write(`${JSON.stringify({ files })}\n`);
}

function floorChild(target) {
  const t0 = process.hrtime.bigint();
  const files = [];
  const walk = (dir) => {
    const entries = fs.readdirSync(dir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && e.name.endsWith('.jsonl')) files.push(p);
    }
  };
  if (fs.statSync(target).isDirectory()) walk(target);
  else files.push(target);

  const CHUNK = 8 * MB;
  let buf = Buffer.allocUnsafe(CHUNK);
  let lines = 0;
  let parsed = 0;
  let bytes = 0;
  const parse = (b, s, e) => {
    lines++;
    try {
      JSON.parse(b.toString('utf8', s, e));
      parsed++;
    } catch {
      // an unparseable line costs what it costs
    }
  };
  for (const file of files) {
    const fd = fs.openSync(file, 'r');
    let kept = 0; // bytes of an unfinished line at the start of buf
    for (;;) {
      if (kept === buf.length) {
        // one line longer than the buffer: grow it
        const bigger = Buffer.allocUnsafe(buf.length * 2);
        buf.copy(bigger, 0, 0, kept);
        buf = bigger;
      }
      const n = fs.readSync(fd, buf, kept, buf.length - kept, null);
      if (n === 0) break;
      bytes += n;
      const end = kept + n;
      let s = 0;
      let nl = buf.indexOf(10, kept);
      while (nl !== -1 && nl < end) {
        if (nl > s) parse(buf, s, nl);
        s = nl + 1;
        nl = buf.indexOf(10, s);
      }
      kept = end - s;
      if (kept > 0 && s > 0) buf.copy(buf, 0, s, end);
    }
    if (kept > 0) parse(buf, 0, kept);
    fs.closeSync(fd);
  }
  const ns = process.hrtime.bigint() - t0;
  process.stdout.write(
    `${JSON.stringify({ files: files.length, bytes, lines, parsed, innerMs: Number(ns) / 1e6, maxRssKb: process.resourceUsage().maxRSS })}\n`,
  );
}

// ---------------------------------------------------------------- arguments
function parseArgs(argv) {
  const opts = {
    sizeMb: 320,
    bigMb: 720,
    skipBig: false,
    corpus: path.resolve(REPO, '..', 'shared', 'corpus'),
    runs: 3,
    rebuild: false,
    only: undefined,
    words: ['migration', 'the'],
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) fail(`${a} needs a value`);
      return v;
    };
    const num = () => {
      const v = Number(value());
      if (!Number.isFinite(v) || v <= 0) fail(`${a} needs a positive number`);
      return v;
    };
    if (a === '--size-mb') opts.sizeMb = num();
    else if (a === '--big-mb') opts.bigMb = num();
    else if (a === '--skip-big') opts.skipBig = true;
    else if (a === '--corpus') opts.corpus = path.resolve(value());
    else if (a === '--runs') opts.runs = Math.round(num());
    else if (a === '--rebuild') opts.rebuild = true;
    else if (a === '--only') {
      opts.only = value();
      if (opts.only !== 'check' && opts.only !== 'search') fail('--only takes check or search');
    } else if (a === '--search-words') opts.words = value().split(',').filter((w) => w !== '');
    else if (a === '-h' || a === '--help') {
      process.stdout.write(
        'usage: node bench/run.mjs [--size-mb 320] [--big-mb 720] [--skip-big] [--corpus <dir>] [--runs 3] [--rebuild] [--only check|search] [--search-words migration,the]\n',
      );
      process.exit(0);
    } else fail(`unknown argument ${a}`);
  }
  return opts;
}

function fail(message) {
  process.stderr.write(`bench: ${message}\n`);
  process.exit(2);
}

function log(message) {
  process.stderr.write(`bench: ${message}\n`);
}

// ---------------------------------------------------------------- writing, only below bench/.tree
function inTree(p) {
  const abs = path.resolve(p);
  if (abs !== TREE && !abs.startsWith(TREE + path.sep)) throw new Error(`refusing to write outside bench/.tree: ${abs}`);
  return abs;
}
const mkdir = (p) => fs.mkdirSync(inTree(p), { recursive: true });
const rmTree = (p) => fs.rmSync(inTree(p), { recursive: true, force: true });
const writeFile = (p, data) => fs.writeFileSync(inTree(p), data);
const copyFile = (from, to) => fs.copyFileSync(from, inTree(to));

// ---------------------------------------------------------------- corpus
function walkJsonl(dir, out = []) {
  const entries = fs.readdirSync(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walkJsonl(p, out);
    else if (e.isFile() && e.name.endsWith('.jsonl')) out.push(p);
  }
  return out;
}

/**
 * Corpus files with where a copy goes: a main session (`<sid>.jsonl`, or any
 * other name, which gets a uuid name), a subagent file
 * (`<sid>/subagents/[nested/]agent-*.jsonl`, kept below its session's folder)
 * or a legacy flat `agent-*.jsonl` (kept as `agent-<fresh hex>.jsonl`).
 */
function corpusPlan(corpus) {
  if (!fs.existsSync(corpus) || !fs.statSync(corpus).isDirectory()) fail(`corpus folder not found: ${corpus}`);
  const files = walkJsonl(corpus);
  if (files.length === 0) fail(`no .jsonl files in ${corpus}`);
  const plan = [];
  let bytes = 0;
  const hash = crypto.createHash('sha256');
  for (const file of files) {
    const rel = path.relative(corpus, file);
    const parts = rel.split(path.sep);
    const size = fs.statSync(file).size;
    bytes += size;
    hash.update(`${rel}\0${size}\0`);
    const at = parts.lastIndexOf('subagents');
    const name = parts[parts.length - 1];
    if (at >= 1 && name.startsWith('agent-')) {
      // group key: the session folder the subagents belong to
      plan.push({ file, size, kind: 'subagent', group: parts.slice(0, at).join('/'), inner: parts.slice(at).join('/') });
    } else if (name.startsWith('agent-')) {
      plan.push({ file, size, kind: 'legacy-agent', hexLength: Math.max(7, name.length - 'agent-'.length - '.jsonl'.length) });
    } else {
      const stem = name.slice(0, -'.jsonl'.length);
      // a main file owns the group of `<dir>/<stem>/subagents/…` next to it
      plan.push({ file, size, kind: 'main', group: [...parts.slice(0, -1), stem].join('/') });
    }
  }
  return { files: plan, bytes, fingerprint: hash.digest('hex').slice(0, 16) };
}

// ---------------------------------------------------------------- the tree
function treeBytes() {
  if (!fs.existsSync(PROJECTS)) return { bytes: 0, files: 0 };
  let bytes = 0;
  const files = walkJsonl(PROJECTS);
  for (const f of files) bytes += fs.statSync(f).size;
  return { bytes, files: files.length };
}

function readManifest() {
  try {
    return JSON.parse(fs.readFileSync(MANIFEST, 'utf8'));
  } catch {
    return {};
  }
}

function buildTree(opts, corpus, manifest) {
  const want = Math.ceil(opts.sizeMb * MB);
  const m = manifest.tree;
  if (!opts.rebuild && m && m.format === TREE_FORMAT && m.corpus === corpus.fingerprint && m.sizeMb === opts.sizeMb) {
    const now = treeBytes();
    if (now.bytes === m.bytes && now.files === m.files && now.bytes >= want) {
      log(`reusing tree: ${now.files} files, ${(now.bytes / MB).toFixed(1)} MB`);
      return m;
    }
  }
  rmTree(PROJECTS);
  mkdir(PROJECTS);
  log(`building tree of ≥ ${opts.sizeMb} MB from ${corpus.files.length} corpus files (${(corpus.bytes / MB).toFixed(1)} MB per copy)…`);
  let bytes = 0;
  let files = 0;
  let copies = 0;
  while (bytes < want) {
    copies++;
    const project = path.join(PROJECTS, `-bench-p${copies}`);
    mkdir(project);
    const groupIds = new Map(); // corpus group → fresh session uuid, per copy
    const idOf = (group) => {
      let id = groupIds.get(group);
      if (id === undefined) groupIds.set(group, (id = crypto.randomUUID()));
      return id;
    };
    for (const f of corpus.files) {
      let target;
      if (f.kind === 'main') target = path.join(project, `${idOf(f.group)}.jsonl`);
      else if (f.kind === 'subagent') target = path.join(project, idOf(f.group), ...f.inner.split('/'));
      else target = path.join(project, `agent-${crypto.randomBytes(f.hexLength).toString('hex').slice(0, f.hexLength)}.jsonl`);
      mkdir(path.dirname(target));
      copyFile(f.file, target);
      bytes += f.size;
      files++;
    }
  }
  const tree = { format: TREE_FORMAT, corpus: corpus.fingerprint, sizeMb: opts.sizeMb, bytes, files, projects: copies };
  writeFile(MANIFEST, JSON.stringify({ ...manifest, tree }, null, 2));
  log(`tree built: ${files} files in ${copies} project folders, ${(bytes / MB).toFixed(1)} MB`);
  return tree;
}

// ---------------------------------------------------------------- the big session
/**
 * Real main sessions fit to be chained: uuid-named, not a subagent, every line
 * parses and has a `type`, one sessionId equal to the file name, no sidechain
 * records, one root, no uuid repeated (within the file or from an earlier
 * pick). Hand-written fixtures are mostly filtered out by size.
 */
function bigSources(corpus) {
  const picked = [];
  const taken = new Set(); // resumed sessions repeat earlier sessions' records: keep the first only
  for (const f of corpus.files) {
    if (f.kind !== 'main' || f.size < 50 * 1024) continue;
    const stem = path.basename(f.file, '.jsonl');
    if (!UUID_RE.test(stem)) continue;
    const lines = fs.readFileSync(f.file, 'utf8').split('\n');
    if (lines[lines.length - 1] === '') lines.pop();
    let ok = true;
    let roots = [];
    let lastUuid;
    const sessionIds = new Set();
    const uuids = [];
    lines.forEach((line, i) => {
      let o;
      try {
        o = JSON.parse(line);
      } catch {
        ok = false;
        return;
      }
      if (o === null || typeof o !== 'object' || typeof o.type !== 'string') ok = false;
      else {
        if (typeof o.sessionId === 'string') sessionIds.add(o.sessionId);
        if (o.isSidechain === true) ok = false;
        if (typeof o.uuid === 'string') {
          if (o.parentUuid === null) roots.push(i);
          if (o.isSidechain !== true) lastUuid = o.uuid;
          uuids.push(o.uuid);
        }
      }
    });
    if (!ok || roots.length !== 1 || lastUuid === undefined || sessionIds.size !== 1 || !sessionIds.has(stem)) continue;
    if (new Set(uuids).size !== uuids.length || uuids.some((u) => taken.has(u))) continue;
    for (const u of uuids) taken.add(u);
    picked.push({ file: f.file, lines, root: roots[0], lastUuid, sessionId: stem });
  }
  return picked;
}

function buildBig(opts, corpus, manifest) {
  const want = Math.ceil(opts.bigMb * MB);
  const m = manifest.big;
  if (!opts.rebuild && m && m.format === TREE_FORMAT && m.corpus === corpus.fingerprint && m.bigMb === opts.bigMb) {
    try {
      if (fs.statSync(m.path).size === m.bytes && m.bytes >= want) {
        log(`reusing big session: ${(m.bytes / MB).toFixed(1)} MB, ${m.records} lines`);
        return m;
      }
    } catch {
      // rebuild below
    }
  }
  const sources = bigSources(corpus);
  if (sources.length === 0) fail('no real main session in the corpus to build the big file from');
  rmTree(BIG_DIR);
  const sessionId = crypto.randomUUID();
  const dir = path.join(BIG_DIR, '-bench-big');
  mkdir(dir);
  const file = inTree(path.join(dir, `${sessionId}.jsonl`));
  log(`building big session ≥ ${opts.bigMb} MB from ${sources.length} real main sessions…`);
  const sourceIds = new Set(sources.map((s) => s.sessionId));
  // Per repetition, a uuid maps to itself with its first 8 hex digits xor-ed by
  // a per-repetition mask: a bijection, so uuids stay unique within a
  // repetition and (the originals being random) across repetitions. The
  // sources' session ids all become the big file's session id. Message and
  // tool-use ids get a per-repetition tag so same-message.id grouping and
  // tool_use/tool_result pairing stay within their repetition.
  const maskOf = (rep) => (Math.imul(rep + 1, 0x9e3779b1) ^ 0x5bd1e995) >>> 0;
  const mapUuid = (uuid, mask) => {
    if (sourceIds.has(uuid)) return sessionId;
    return ((parseInt(uuid.slice(0, 8), 16) ^ mask) >>> 0).toString(16).padStart(8, '0') + uuid.slice(8);
  };
  const TOKEN = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|\b(?:msg_|toolu_)[0-9A-Za-z]{8,}/g;
  const fd = fs.openSync(file, 'w');
  let bytes = 0;
  let records = 0;
  let rep = 0;
  let prevLast = null; // the previous segment's last uuid, already mapped
  let pending = [];
  let pendingLength = 0;
  const flush = () => {
    if (pending.length === 0) return;
    const b = Buffer.from(pending.join(''), 'utf8');
    fs.writeSync(fd, b);
    bytes += b.length;
    pending = [];
    pendingLength = 0;
  };
  try {
    while (bytes + pendingLength < want) {
      const mask = maskOf(rep);
      const tag = rep.toString(36).padStart(4, '0');
      const rewrite = (token) => {
        if (token.charCodeAt(8) === 45 /* - */) return mapUuid(token, mask);
        const cut = token.indexOf('_') + 1;
        return token.slice(0, cut) + tag + token.slice(cut + tag.length);
      };
      for (const src of sources) {
        for (let i = 0; i < src.lines.length; i++) {
          let line = src.lines[i].replace(TOKEN, rewrite);
          if (i === src.root && prevLast !== null) {
            // chain this segment's root to the previous segment's last record
            if (line.startsWith('{"parentUuid":null')) {
              line = `{"parentUuid":${JSON.stringify(prevLast)}${line.slice('{"parentUuid":null'.length)}`;
            } else {
              const o = JSON.parse(line);
              o.parentUuid = prevLast;
              line = JSON.stringify(o);
            }
          }
          pending.push(line, '\n');
          pendingLength += line.length + 1; // close enough to bytes for flushing decisions
          records++;
        }
        prevLast = mapUuid(src.lastUuid, mask);
        if (pendingLength > 16 * MB) flush();
      }
      rep++;
    }
    flush();
  } finally {
    fs.closeSync(fd);
  }
  const big = { format: TREE_FORMAT, corpus: corpus.fingerprint, bigMb: opts.bigMb, path: file, bytes, records, repetitions: rep, sources: sources.length };
  writeFile(MANIFEST, JSON.stringify({ ...readManifest(), big }, null, 2));
  log(`big session built: ${(bytes / MB).toFixed(1)} MB, ${records} lines, ${rep} repetitions of ${sources.length} sessions`);
  return big;
}

// ---------------------------------------------------------------- measuring
const TIME = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;
// Without /usr/bin/time, a preload reports the child's own peak RSS at exit.
const RSS_PRELOAD =
  "data:text/javascript,import{writeSync}from'node:fs';process.on('exit',()=>{writeSync(2,'\\nBENCH_MAXRSS_KB='+process.resourceUsage().maxRSS+'\\n')})";

/** Runs `node <args>` once; wall time from the parent, peak RSS of the child. */
function measure(label, nodeArgs, acceptCodes, env = process.env) {
  const timeFile = inTree(path.join(TREE, `time-${process.pid}.txt`));
  const devNull = fs.openSync('/dev/null', 'w');
  let cmd;
  let args;
  if (TIME !== undefined) {
    cmd = TIME;
    args = ['-v', '-o', timeFile, process.execPath, ...nodeArgs];
  } else {
    cmd = process.execPath;
    args = ['--import', RSS_PRELOAD, ...nodeArgs];
  }
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, args, {
    cwd: REPO,
    env,
    stdio: ['ignore', label === 'floor' || label === 'walk' ? 'pipe' : devNull, 'pipe'],
    maxBuffer: 256 * MB,
  });
  const wallMs = Number(process.hrtime.bigint() - t0) / 1e6;
  fs.closeSync(devNull);
  if (r.error) throw r.error;
  const stderr = r.stderr.toString();
  let maxRssKb;
  if (TIME !== undefined) {
    const text = fs.readFileSync(timeFile, 'utf8');
    fs.rmSync(timeFile, { force: true });
    maxRssKb = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(text)?.[1]);
  } else {
    maxRssKb = Number(/BENCH_MAXRSS_KB=(\d+)/.exec(stderr)?.[1]);
  }
  const code = r.status;
  const ok = code !== null && acceptCodes.includes(code);
  const sample = { wallMs, maxRssKb, exitCode: code, signal: r.signal ?? undefined, ok };
  if (label === 'floor') {
    try {
      sample.floor = JSON.parse(r.stdout.toString().trim().split('\n').pop());
    } catch {
      sample.ok = false;
    }
  }
  if (!sample.ok) {
    sample.stderr = stderr.slice(-4000);
    log(`${label} failed (exit ${code}${r.signal ? `, ${r.signal}` : ''}):\n${sample.stderr}`);
  }
  log(`  ${label.padEnd(6)} ${(wallMs / 1000).toFixed(2)} s, peak RSS ${(maxRssKb / 1024).toFixed(0)} MB, exit ${code}`);
  return sample;
}

const floorArgs = (target) => [SELF, '--floor-child', target];
const walkArgs = (target) => [SELF, '--walk-child', target];
const cclintArgs = (target, ...more) => [CLI, 'check', target, '--format', 'json', ...more];
const fixDryRunArgs = (target) => [CLI, 'fix', '--dry-run', target];
const cacheEnv = { ...process.env, CCLINT_HOME };
const oneThreadEnv = { ...process.env, CCLINT_THREADS: '1' };

function median(values) {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[mid] : (s[mid - 1] + s[mid]) / 2;
}

/**
 * One session file of the target to append to: the big session itself, or
 * the largest main session of the tree's first project folder.
 */
function appendTarget(target) {
  if (!fs.statSync(target).isDirectory()) return target;
  const first = fs.readdirSync(target).sort()[0];
  const dir = path.join(target, first);
  const mains = fs.readdirSync(dir).filter((n) => UUID_RE.test(n.replace(/\.jsonl$/, '')) && n.endsWith('.jsonl'));
  mains.sort((a, b) => fs.statSync(path.join(dir, b)).size - fs.statSync(path.join(dir, a)).size);
  return path.join(dir, mains[0]);
}

/** Appends one user record to `file`, continuing its last record, as Claude Code would. */
function appendRecord(file) {
  const size = fs.statSync(file).size;
  const tail = Buffer.alloc(Math.min(size, 4 * MB));
  const fd = fs.openSync(inTree(file), 'r+');
  try {
    fs.readSync(fd, tail, 0, tail.length, size - tail.length);
    const lines = tail.toString('utf8').split('\n').filter((l) => l.trim() !== '');
    let last;
    for (let i = lines.length - 1; i >= 0 && last === undefined; i--) {
      try {
        const o = JSON.parse(lines[i]);
        if (typeof o.uuid === 'string' && o.isSidechain !== true) last = o;
      } catch {
        // a torn line: look further back
      }
    }
    const record = {
      parentUuid: last?.uuid ?? null,
      isSidechain: false,
      type: 'user',
      message: { role: 'user', content: [{ type: 'text', text: 'one more question for the bench' }] },
      uuid: crypto.randomUUID(),
      timestamp: new Date().toISOString(),
      sessionId: last?.sessionId,
      cwd: last?.cwd,
    };
    const needsNewline = tail.length > 0 && tail[tail.length - 1] !== 0x0a;
    fs.writeSync(fd, `${needsNewline ? '\n' : ''}${JSON.stringify(record)}\n`, size);
  } finally {
    fs.closeSync(fd);
  }
}

function summary(samples) {
  return {
    medianMs: median(samples.map((s) => s.wallMs)),
    peakRssMb: Math.max(...samples.map((s) => s.maxRssKb)) / 1024,
    ok: samples.every((s) => s.ok),
    samples,
  };
}

/**
 * On one target, interleaved `runs` times: the floor; a cold check without
 * the cache; a cold check with an empty cache (what filling it costs); then,
 * with that cache, one record appended to one session and a warm check. A
 * bare walk that stats every file is measured too, as the least a run that
 * must notice a change can pay. The target's files are put back as they
 * were at the end (appended bytes cut off).
 */
function compare(name, target, runs) {
  const file = appendTarget(target);
  const originalSize = fs.statSync(file).size;
  log(`${name}: warm-up read (not timed); appends go to ${path.relative(REPO, file)}`);
  measure('floor', floorArgs(target), [0]);
  const floor = [];
  const cold = [];
  const coldCache = [];
  const warm = [];
  const walk = [];
  // What `fix` pays to find nothing, or a few things, to repair: it writes nothing.
  const fixDryRun = [];
  // A tree is spread over the cores, and one big session's index over two
  // (split-parse.ts): how much that buys is worth a column.
  const oneThread = [];
  const accept = [0, 1];
  try {
    for (let i = 0; i < runs; i++) {
      log(`${name}: run ${i + 1} of ${runs}`);
      floor.push(measure('floor', floorArgs(target), [0]));
      cold.push(measure('cclint', cclintArgs(target), accept));
      oneThread.push(measure('cclint, one thread', cclintArgs(target), accept, oneThreadEnv));
      // Exit 2 on the tree: its copies of the corpus's foreign files are skipped, as they must be.
      fixDryRun.push(measure('fix --dry-run', fixDryRunArgs(target), [0, 1, 2]));
      rmTree(CCLINT_HOME);
      coldCache.push(measure('cold --cache', cclintArgs(target, '--cache'), accept, cacheEnv));
      appendRecord(file);
      warm.push(measure('warm --cache', cclintArgs(target, '--cache'), accept, cacheEnv));
      walk.push(measure('walk', walkArgs(target), [0]));
    }
  } finally {
    fs.truncateSync(inTree(file), originalSize);
    rmTree(CCLINT_HOME);
  }
  const f = summary(floor);
  const ratio = (x) => x.medianMs / f.medianMs;
  const c = summary(cold);
  const cc = summary(coldCache);
  const w = summary(warm);
  const k = summary(walk);
  const one = summary(oneThread);
  const fd = summary(fixDryRun);
  return {
    floor: f,
    cclint: c,
    oneThread: one,
    coldCache: cc,
    warm: w,
    walk: k,
    fixDryRun: fd,
    ratio: ratio(c),
    ratios: {
      cold: ratio(c),
      oneThread: ratio(one),
      coldCache: ratio(cc),
      warm: ratio(w),
      walk: ratio(k),
      fixDryRun: ratio(fd),
      warmToCold: w.medianMs / c.medianMs,
    },
  };
}

/**
 * `cclint search <word> <tree> --format json`, interleaved `runs` times with
 * the floor, per word: cold without the cache; cold with an empty cache
 * (what filling it costs); warm, with the cache the previous run filled and
 * one record appended to one session (as a live session grows). Exit codes 0
 * (found) and 1 (nothing found) are success.
 */
function compareSearch(target, runs, words) {
  const file = appendTarget(target);
  const originalSize = fs.statSync(file).size;
  log(`search: warm-up read (not timed); appends go to ${path.relative(REPO, file)}`);
  measure('floor', floorArgs(target), [0]);
  const floor = [];
  const perWord = words.map((word) => ({ word, cold: [], oneThread: [], coldCache: [], warm: [] }));
  const accept = [0, 1];
  const args = (word, ...more) => [CLI, 'search', word, target, '--format', 'json', ...more];
  try {
    for (let i = 0; i < runs; i++) {
      log(`search: run ${i + 1} of ${runs}`);
      floor.push(measure('floor', floorArgs(target), [0]));
      for (const w of perWord) {
        w.cold.push(measure(`search ${w.word}`, args(w.word), accept));
        w.oneThread.push(measure(`search ${w.word} 1 thread`, args(w.word), accept, oneThreadEnv));
        rmTree(CCLINT_HOME);
        w.coldCache.push(measure(`search ${w.word} cold --cache`, args(w.word, '--cache'), accept, cacheEnv));
        appendRecord(file);
        w.warm.push(measure(`search ${w.word} warm --cache`, args(w.word, '--cache'), accept, cacheEnv));
        fs.truncateSync(inTree(file), originalSize);
      }
    }
  } finally {
    fs.truncateSync(inTree(file), originalSize);
    rmTree(CCLINT_HOME);
  }
  const f = summary(floor);
  const ratio = (x) => x.medianMs / f.medianMs;
  // Each run's ratio to the floor of the same run: the range says how much the machine moved.
  const range = (samples) => {
    const r = samples.map((s, i) => s.wallMs / floor[i].wallMs);
    return [Math.min(...r), Math.max(...r)];
  };
  return {
    floor: f,
    words: perWord.map((w) => {
      const c = summary(w.cold);
      const one = summary(w.oneThread);
      const cc = summary(w.coldCache);
      const wm = summary(w.warm);
      return {
        word: w.word,
        cold: c,
        oneThread: one,
        coldCache: cc,
        warm: wm,
        ratios: { cold: ratio(c), oneThread: ratio(one), coldCache: ratio(cc), warm: ratio(wm) },
        ranges: { cold: range(w.cold), oneThread: range(w.oneThread), coldCache: range(w.coldCache), warm: range(w.warm) },
      };
    }),
  };
}

// ---------------------------------------------------------------- main
function diskFreeBytes(dir) {
  try {
    const s = fs.statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return Infinity;
  }
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!fs.existsSync(CLI)) fail(`${path.relative(REPO, CLI)} not found: run \`npm run build\` (or \`npm run bench\`)`);
  mkdir(TREE);

  // Scale down when the disk is short (needs ~ tree + big, plus headroom).
  const manifest = readManifest();
  const corpus = corpusPlan(opts.corpus);
  const free = diskFreeBytes(TREE);
  const existing = (manifest.tree?.bytes ?? 0) + (manifest.big?.bytes ?? 0);
  const notes = [];
  if (free + existing < 3 * 1024 * MB) {
    const budget = Math.max(0, (free + existing) / 2) / MB; // use at most half of what is free
    const need = opts.sizeMb + (opts.skipBig ? 0 : opts.bigMb);
    if (need > budget) {
      const k = budget / need;
      opts.sizeMb = Math.max(1, Math.floor(opts.sizeMb * k));
      opts.bigMb = Math.max(1, Math.floor(opts.bigMb * k));
      const note = `less than 3 GB free on the disk (${(free / 1024 / MB).toFixed(1)} GB): scaled down to --size-mb ${opts.sizeMb} --big-mb ${opts.bigMb}; targets are for 300/700 MB`;
      notes.push(note);
      log(note);
    }
  }

  const tree = buildTree(opts, corpus, manifest);
  const checks = opts.only !== 'search';
  const big = opts.skipBig || !checks ? undefined : buildBig(opts, corpus, readManifest());

  const treeResult = checks ? compare('tree', PROJECTS, opts.runs) : undefined;
  const bigResult = big === undefined ? undefined : compare('big session', big.path, opts.runs);
  const searchResult = opts.only !== 'check' && opts.words.length > 0 ? compareSearch(PROJECTS, opts.runs, opts.words) : undefined;

  let commit;
  try {
    commit = spawnSync('git', ['rev-parse', 'HEAD'], { cwd: REPO }).stdout.toString().trim() || undefined;
  } catch {
    commit = undefined;
  }
  const peak = (r) => Math.max(r.cclint.peakRssMb, r.coldCache.peakRssMb, r.warm.peakRssMb);
  const targets = {
    treeColdAtMost1_0: treeResult === undefined ? null : treeResult.ratios.cold <= 1,
    treeWarmAtMost0_15: treeResult === undefined ? null : treeResult.ratios.warm <= 0.15,
    bigColdAtMost1_2: bigResult === undefined ? null : bigResult.ratios.cold <= 1.2,
    bigWarmAtMost0_05OfCold: bigResult === undefined ? null : bigResult.ratios.warmToCold <= 0.05,
    peakRssUnder600Mb: (treeResult === undefined || peak(treeResult) < 600) && (bigResult === undefined || peak(bigResult) < 600),
    bigSessionChecked: bigResult === undefined ? null : bigResult.cclint.ok,
    searchColdAtMost1_5: searchResult === undefined ? null : searchResult.words.every((w) => w.ratios.cold <= 1.5),
    searchColdOneThreadAtMost1_5: searchResult === undefined ? null : searchResult.words.every((w) => w.ratios.oneThread <= 1.5),
  };
  const results = {
    date: new Date().toISOString(),
    loadAverage: os.loadavg(),
    commit,
    node: process.version,
    cpu: os.cpus()[0]?.model,
    cpus: os.cpus().length,
    rssSource: TIME !== undefined ? '/usr/bin/time -v' : 'process.resourceUsage().maxRSS',
    notes,
    options: opts,
    tree: { bytes: tree.bytes, files: tree.files, projects: tree.projects, ...treeResult },
    big: big === undefined ? undefined : { bytes: big.bytes, lines: big.records, repetitions: big.repetitions, ...bigResult },
    search: searchResult,
    targets,
  };
  writeFile(RESULTS, `${JSON.stringify(results, null, 2)}\n`);

  const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
  const mb = (n) => `${n.toFixed(0)} MB`;
  const x = (n) => `${n.toFixed(2)}x`;
  const load = `load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')} at the end`;
  const row = (name, bytes, r) =>
    `| ${name}, ${mb(bytes / MB)} | ${s(r.floor.medianMs)} | ${x(r.ratios.cold)} | ${r.ratios.oneThread === null ? 'same' : x(r.ratios.oneThread)} | ${x(r.ratios.coldCache)} | ${x(r.ratios.warm)} (${x(r.ratios.warmToCold)} of cold) | ${x(r.ratios.walk)} | ${x(r.ratios.fixDryRun)} | ${mb(r.floor.peakRssMb)} | ${mb(r.cclint.peakRssMb)} / ${mb(r.coldCache.peakRssMb)} / ${mb(r.warm.peakRssMb)} / ${mb(r.fixDryRun.peakRssMb)} |` +
    `${r.cclint.ok && (r.oneThread?.ok ?? true) && r.coldCache.ok && r.warm.ok && r.fixDryRun.ok ? '' : ' cclint FAILED'}`;
  const out = [];
  if (treeResult !== undefined) {
    out.push(
      '',
      `cclint check --format json against the read-and-parse floor, measured in the same run (median of ${opts.runs}, wall time incl. process start; node ${process.version}, ${os.cpus().length} cores, ${load})`,
      '',
      '| input | floor | cold | cold, one thread | cold, filling --cache | warm --cache, one record appended | walk and stat only | fix --dry-run | floor peak RSS | cclint peak RSS (cold / filling / warm / fix --dry-run) |',
      '|---|---|---|---|---|---|---|---|---|---|',
      row(`tree (${tree.files} files)`, tree.bytes, treeResult),
    );
    if (bigResult !== undefined) out.push(row(`one session (${big.records.toLocaleString('en-US')} lines)`, big.bytes, bigResult));
    out.push(
      '',
      `targets: cold ≤ 1.0x the floor on the tree: ${treeResult.ratios.cold <= 1 ? 'met' : 'MISSED'}; ` +
        `warm ≤ 0.15x on the tree: ${treeResult.ratios.warm <= 0.15 ? 'met' : 'MISSED'}; ` +
        (bigResult === undefined
          ? ''
          : `one session cold ≤ 1.2x: ${bigResult.ratios.cold <= 1.2 ? 'met' : 'MISSED'}; warm ≤ 0.05x of its cold run: ${bigResult.ratios.warmToCold <= 0.05 ? 'met' : 'MISSED'}; `) +
        `peak RSS < 600 MB: ${targets.peakRssUnder600Mb ? 'met' : 'MISSED'}`,
    );
  }
  if (searchResult !== undefined) {
    const rr = ([lo, hi]) => (opts.runs > 1 ? ` (${x(lo)} to ${x(hi)})` : '');
    const all = searchResult.words.flatMap((w) => [w.cold, w.oneThread, w.coldCache, w.warm]);
    out.push(
      '',
      `cclint search <word> --format json on the tree (${tree.files} files, ${mb(tree.bytes / MB)}) against the same floor (${s(searchResult.floor.medianMs)}), median of ${opts.runs} and the range of each run's ratio to its own floor; ${load}`,
      '',
      '| word | cold | cold, one thread | cold, filling --cache | warm --cache, one record appended | peak RSS (cold / filling / warm) |',
      '|---|---|---|---|---|---|',
      ...searchResult.words.map(
        (w) =>
          `| \`${w.word}\` | ${x(w.ratios.cold)}${rr(w.ranges.cold)} | ${x(w.ratios.oneThread)}${rr(w.ranges.oneThread)} | ${x(w.ratios.coldCache)}${rr(w.ranges.coldCache)} | ${x(w.ratios.warm)}${rr(w.ranges.warm)} | ${mb(w.cold.peakRssMb)} / ${mb(w.coldCache.peakRssMb)} / ${mb(w.warm.peakRssMb)} |` +
          `${w.cold.ok && w.oneThread.ok && w.coldCache.ok && w.warm.ok ? '' : ' search FAILED'}`,
      ),
      '',
      `target: search cold ≤ 1.5x the floor: ${targets.searchColdAtMost1_5 ? 'met' : 'MISSED'} (one thread: ${targets.searchColdOneThreadAtMost1_5 ? 'met' : 'MISSED'})${all.every((r) => r.ok) ? '' : ' (a run failed)'}`,
    );
  }
  out.push(...notes.map((n) => `note: ${n}`), `results: ${path.relative(REPO, RESULTS)}`, '');
  process.stdout.write(out.join('\n'));
  const bad = (r) => !r.cclint.ok || !(r.oneThread?.ok ?? true) || !r.floor.ok || !r.coldCache.ok || !r.warm.ok || !r.fixDryRun.ok;
  const searchBad = searchResult !== undefined && (!searchResult.floor.ok || searchResult.words.some((w) => !w.cold.ok || !w.oneThread.ok || !w.coldCache.ok || !w.warm.ok));
  const failed = (treeResult !== undefined && bad(treeResult)) || (bigResult !== undefined && bad(bigResult)) || searchBad;
  process.exitCode = failed ? 1 : 0;
}

main();
