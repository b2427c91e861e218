/**
 * oversized-image
 *
 * ## What it detects
 * An image the API will not take: one side over 8,000 pixels, base64 data
 * over 5 MB, or, when the request resume sends holds more than 20 images,
 * one side over 2,000 pixels. The size is read from the image's own header
 * (PNG, JPEG, GIF, WebP), top-level or inside a tool result.
 *
 * ## Why it matters
 * The CLI sends images from the history as they were stored, and every
 * prompt after `claude --resume` fails with `API Error: 400 … At least one
 * of the image dimensions exceed max allowed size: 8000 pixels` (`… for
 * many-image requests: 2000 pixels`), or `image exceeds 5 MB maximum`.
 * Error when the request resume sends holds the image; warning when it is
 * on a branch resume does not send.
 *
 * ## Fix
 * Replace each such image with a short text block naming what it was
 * (format, size in pixels and bytes). Unsafe: the model no longer sees the
 * image; the original stays in cclint's backup.
 *
 * ## Known false positives
 * An image whose header cannot be read is judged by its byte size alone.
 */
import { type ApiRuleId, imageProblem } from '../core/api-request.js';
import type { ImageFacts, RecordSummary } from '../core/records.js';
import type { SessionIndex } from '../core/session-index.js';
import type { Fix, JsonObject } from '../core/types.js';
import { rewriteContentEdits } from '../core/fix-builders.js';
import { defineRule } from './rule.js';

function describe(image: ImageFacts): string {
  const size = image.width > 0 ? `${image.width}x${image.height} px` : 'unknown size';
  return `${image.format ?? 'image'} ${size}, ${Math.round((image.bytes * 3) / 4 / 1024)} KB`;
}

function placeholder(image: ImageFacts): JsonObject {
  return { type: 'text', text: `[image removed by cclint: ${describe(image)}, over the API's limits; the original is in cclint's backup]` };
}

function replaceFix(index: SessionIndex, record: RecordSummary, bad: ReadonlySet<number>): Fix {
  return {
    title: `Replace ${bad.size} oversized image(s) with a text placeholder`,
    applicability: 'unsafe',
    changesContent: true,
    edits: () =>
      rewriteContentEdits(index, [record], (content) => {
        // Images in the order the summary lists them: top-level and nested, in block order.
        let n = -1;
        const swap = (b: JsonObject): JsonObject => {
          if (b?.type !== 'image' || (b.source as JsonObject | undefined)?.type !== 'base64') return b;
          n++;
          const image = record.images[n];
          return image !== undefined && bad.has(n) ? placeholder(image) : b;
        };
        return content.map((b) => {
          if (b?.type === 'tool_result' && Array.isArray(b.content)) return { ...b, content: (b.content as JsonObject[]).map(swap) };
          return swap(b);
        });
      }),
  };
}

const LIMIT_TEXT: Readonly<Partial<Record<ApiRuleId, string>>> = {
  'image-too-large': 'over 5 MB',
  'image-dimensions': 'over 8000 px',
  'image-dimensions-many': 'over 2000 px in a request of more than 20 images',
};

export default defineRule({
  meta: {
    id: 'oversized-image',
    description: 'Every image is within the API limits',
    severity: 'error',
    fixable: 'unsafe',
    messages: {
      oversized: '{count} image(s) {limit} ({first}); {what}',
    },
  },
  check({ index, resume, report }) {
    for (const record of index.effectiveRecords()) {
      if (record.images.length === 0) continue;
      const request = resume.request();
      const carried = request.carries(record);
      const bad = new Set<number>();
      let limit: ApiRuleId | undefined;
      record.images.forEach((image, i) => {
        const problem = imageProblem(image, carried ? request.imageCount : 0);
        if (problem === undefined) return;
        bad.add(i);
        limit ??= problem;
      });
      if (limit === undefined) continue;
      const first = record.images[[...bad][0] as number] as ImageFacts;
      report({
        messageId: 'oversized',
        data: {
          count: bad.size,
          limit: LIMIT_TEXT[limit] ?? limit,
          first: describe(first),
          what: carried ? 'resume sends it and the API answers 400' : 'resume does not send it today',
        },
        record,
        severity: carried ? 'error' : 'warning',
        fix: record.recovery === undefined ? replaceFix(index, record, bad) : undefined,
      });
    }
  },
});
