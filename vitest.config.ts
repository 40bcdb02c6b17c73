import { defineConfig } from "vitest/config";

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
    testTimeout: 60_000,
    hookTimeout: 120_000,
    pool: "forks",
  },
});
