/**
 * Both clients know the statuses the gateway sends, each with the gateway's one-line meaning: a status added or
 * reworded in FIELD_STATUSES fails here until the Node.js and Python clients say the same.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";
import { STATUS_MEANINGS } from "@winnow/client";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../scripts/src/stack.js";
import { FIELD_STATUSES } from "../services/gateway/src/docs/openapi.js";

const GATEWAY = Object.fromEntries(FIELD_STATUSES.map(({ status, summary }) => [status, summary]));

async function pythonMeanings(): Promise<Record<string, string>> {
  const { stdout } = await promisify(execFile)(
    "python3",
    ["-c", "import json; from winnow import STATUS_MEANINGS; print(json.dumps(STATUS_MEANINGS))"],
    { env: { ...process.env, PYTHONPATH: path.join(REPO_ROOT, "clients/python") } },
  );
  return JSON.parse(stdout) as Record<string, string>;
}

describe("each status's one-line meaning", () => {
  it("is one line of at most 100 characters", () => {
    for (const { status, summary } of FIELD_STATUSES) {
      expect(summary.length, status).toBeLessThanOrEqual(100);
      expect(summary, status).not.toMatch(/\n/);
    }
  });

  it("is the same in the Node.js client, for the same statuses", () => {
    expect(STATUS_MEANINGS).toEqual(GATEWAY);
  });

  it("is the same in the Python client, for the same statuses", async () => {
    expect(await pythonMeanings()).toEqual(GATEWAY);
  });
});
