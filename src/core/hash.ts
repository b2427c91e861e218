import { createHash } from 'node:crypto';

/** Hex SHA-256: file identity for the planner, the writer, backups and the audit log. */
export function sha256(data: Buffer | string): string {
  return createHash('sha256').update(data).digest('hex');
}
