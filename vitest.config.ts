import { availableParallelism } from "node:os";
import { defineConfig } from "vitest/config";
import { TEST_TIMEOUT_MS } from "./test/support/test-timeout.js";

export default defineConfig({
  test: {
    include: [
      "packages/*/src/**/*.test.ts",
      "services/*/src/**/*.test.ts",
      "scripts/**/*.test.ts",
      "bench/src/**/*.test.ts",
      "test/**/*.test.ts",
      "clients/node/test/**/*.test.ts",
    ],
    // Tests start real servers and processes; give them room on a 2-core machine.
    testTimeout: TEST_TIMEOUT_MS,
    // A whole stack starts in a hook, within 2 × TEST_TIMEOUT_MS (stack-under-test.ts), with a fixture site and more.
    hookTimeout: 3 * TEST_TIMEOUT_MS,
    pool: "forks",
    // Files at once: as many as the cores, two at least. Most of a file's time is waiting (deadlines, retries'
    // backoff, held pages, other processes starting), so a second file fills it: on 2 cores the suite took 976 s with
    // two where it took 1712 s with one, its CPU time 1176 s (docs/testing.md). WINNOW_TEST_FORKS sets it.
    poolOptions: {
      forks: { maxForks: Number(process.env.WINNOW_TEST_FORKS) || Math.max(2, availableParallelism()) },
    },
  },
});
