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
    hookTimeout: 2 * TEST_TIMEOUT_MS,
    pool: "forks",
    // Two files at a time even on 2 cores (vitest's default is one fewer than the cores): most of a file's time is
    // spent waiting on the servers, browsers and processes it starts, not on its own thread. WINNOW_TEST_FORKS sets it.
    poolOptions: { forks: { maxForks: Number(process.env.WINNOW_TEST_FORKS) || Math.max(2, availableParallelism()) } },
  },
});
