/**
 * Folder helpers and a seeded generator for tests that mutate a projects
 * tree at random (the cache tests) or draw random edits (the diff tests).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { copyDemo, type Sandbox } from './cli.js';

export const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A session with subagents (parents across files), from the bundled corpus. */
export const TEAMMATES = path.join(repositoryRoot, 'fixtures/corpus/claude-code-log-fixtures/teammates');

/** A small deterministic generator (mulberry32), so a failing sequence can be replayed from its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function copyTree(from: string, to: string): void {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const a = path.join(from, entry.name);
    const b = path.join(to, entry.name);
    if (entry.isDirectory()) copyTree(a, b);
    else fs.copyFileSync(a, b);
  }
}

/** Every `.jsonl` file below `dir`, sorted. */
export function jsonlFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...jsonlFiles(p));
    else if (entry.name.endsWith('.jsonl')) out.push(p);
  }
  return out.sort();
}

/** The sandbox's projects root holding the demo project and the session with subagents. */
export function demoWithTeam(box: Sandbox): string {
  const root = path.join(box.configDir, 'projects');
  copyDemo(box, root);
  copyTree(TEAMMATES, path.join(root, '-home-dev-team'));
  return root;
}
