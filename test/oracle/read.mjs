// Runs the official reader over transcript files, for the differential test.
// Usage: node read.mjs <file>...   prints one JSON line per file:
//   {"file", "messages": [uuid...], "fps": [type:content-hash...]} or {"file", "error"}
// It never touches the real ~/.claude: the config dir and HOME point at a
// fresh temporary folder before the SDK is loaded, and each file is copied
// there under a fresh session id.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash, randomUUID } from 'node:crypto';

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'cclint-oracle-'));
process.env.HOME = home;
process.env.CLAUDE_CONFIG_DIR = path.join(home, '.claude');
delete process.env.CLAUDE_CODE_DISABLE_PRECOMPACT_SKIP;
const project = path.join(home, '.claude', 'projects', '-oracle');
fs.mkdirSync(project, { recursive: true });

const { getSessionMessages } = await import('@anthropic-ai/claude-agent-sdk');
try {
  for (const file of process.argv.slice(2)) {
    const id = randomUUID();
    const copy = path.join(project, `${id}.jsonl`);
    try {
      fs.copyFileSync(file, copy);
      const messages = await getSessionMessages(id);
      // A message's content fingerprint: what a repair must bring back, whatever uuid it carries.
      const fps = messages.map((m) => `${m.type}:${createHash('sha256').update(JSON.stringify(m.message?.content ?? null)).digest('hex').slice(0, 16)}`);
      process.stdout.write(`${JSON.stringify({ file, messages: messages.map((m) => m.uuid), fps })}\n`);
    } catch (error) {
      process.stdout.write(`${JSON.stringify({ file, error: String(error) })}\n`);
    } finally {
      fs.rmSync(copy, { force: true });
    }
  }
} finally {
  fs.rmSync(home, { recursive: true, force: true });
}
