// Lists sessions with the official reader (listSessions of the Agent SDK),
// for the rename test. Usage: node list.mjs <claude config dir>
// prints one JSON array: [{sessionId, summary, customTitle}]. HOME and
// CLAUDE_CONFIG_DIR point at the test's sandbox before the SDK is loaded.
import path from 'node:path';

const config = process.argv[2];
process.env.HOME = path.dirname(config);
process.env.CLAUDE_CONFIG_DIR = config;
const { listSessions } = await import('@anthropic-ai/claude-agent-sdk');
const sessions = await listSessions();
process.stdout.write(`${JSON.stringify(sessions.map((s) => ({ sessionId: s.sessionId, summary: s.summary, customTitle: s.customTitle ?? null })))}\n`);
