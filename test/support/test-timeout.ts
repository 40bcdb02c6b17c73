/**
 * The one setting every test deadline is derived from: a test's own limit (vitest's testTimeout), and the waits inside
 * it. A slow machine sets WINNOW_TEST_TIMEOUT_MS higher and the suite is slower, not red.
 */
export const TEST_TIMEOUT_MS = Number(process.env.WINNOW_TEST_TIMEOUT_MS) || 60_000;
