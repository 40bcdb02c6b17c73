import type { AddressInfo } from "node:net";
import { WinnowError } from "@winnow/platform";
import express from "express";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accessLog } from "./access-log.js";
import { sendProblem } from "./problem.js";

const lines: Record<string, unknown>[] = [];
let base: string;
let close: () => void;

beforeAll(async () => {
  const logger = pino({ level: "info" }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const app = express();
  app.use(accessLog(logger));
  app.post("/scrape", (_req, res) => {
    sendProblem(res, new WinnowError("target-http-error", "the target answered HTTP 404", { targetStatus: 404 }));
  });
  const batch = express.Router();
  batch.post("/", (_req, res) => {
    res.status(202).json({ id: "job" });
  });
  app.use("/v1/batch", batch);
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
});

afterAll(() => close?.());

/** The access line of the request that was answered last. */
async function accessLineOf(path: string): Promise<Record<string, unknown>> {
  const before = lines.length;
  const res = await fetch(`${base}${path}?q=1`, { method: "POST" });
  await res.body?.cancel();
  await expect.poll(() => lines.length).toBeGreaterThan(before);
  return lines.at(-1)!;
}

describe("the access log", () => {
  it("says why a request failed: the problem type, its detail and the target's status", async () => {
    const line = await accessLineOf("/scrape");
    expect(line).toMatchObject({
      path: "/scrape",
      status: 502,
      problem_type: "target-http-error",
      problem_detail: "the target answered HTTP 404",
      target_status: 404,
      msg: "POST /scrape 502 target-http-error: the target answered HTTP 404",
    });
  });

  it("names the whole path of a route mounted on a prefix, without its query", async () => {
    const line = await accessLineOf("/v1/batch");
    expect(line).toMatchObject({ path: "/v1/batch", status: 202, msg: "POST /v1/batch 202" });
    expect(line).not.toHaveProperty("problem_type");
  });
});
