/** The terminal text helpers, now in src/formatters/text.ts; kept here for the commands that import them. */
export * from '../formatters/text.js';
