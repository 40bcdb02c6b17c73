/**
 * No account holds more than its share of the extraction workers: the
 * extractor as deployed (its build as its own process, over gRPC), with two
 * workers and so one per account. Account A's pages cost more CPU than
 * their deadline; while they run, account B's page is answered, and A's
 * extractions beyond its share of the queue are refused as overloaded.
 */
import { createClient, promiseClient, WinnowError } from "@winnow/platform";
import { ExtractorServiceClient, type ExtractResponse } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_TOKENS } from "../../../test/support/caller-tokens.js";
import { freePorts } from "../../../test/support/ports.js";
import { type ServiceProcess, startService } from "../../../test/support/service-process.js";
import { TEST_TIMEOUT_MS } from "../../../test/support/test-timeout.js";

const SCHEMA = JSON.stringify({ title: "string", price_usd: "number" });
const NORMAL = `<html><head><title>Desk Lamp</title></head><body><h1>Desk Lamp</h1><p>Price: $19.99</p></body></html>`;
// 50,000 nested <div>s cost the HTML parser tens of seconds of CPU (hostile-pages.test.ts).
const HEAVY = `<html><body>${"<div>".repeat(50_000)}x${"</div>".repeat(50_000)}</body></html>`;

/** A's pages' deadline: they cost more CPU than this, and B's small page is answered well within it. */
const HEAVY_DEADLINE_MS = TEST_TIMEOUT_MS / 4;

let extractor: ServiceProcess;
let client: ExtractorServiceClient;

beforeAll(async () => {
  const [grpcPort, metricsPort] = await freePorts(2);
  const address = `127.0.0.1:${grpcPort}`;
  extractor = await startService(
    "extractor",
    {
      GRPC_HOST: "127.0.0.1",
      GRPC_PORT: String(grpcPort),
      METRICS_HOST: "127.0.0.1",
      METRICS_PORT: String(metricsPort),
      EXTRACT_TEMPLATES: "false",
      // One worker per account by default (half of them); an account's share of the queue is one extraction.
      EXTRACT_WORKERS: "2",
      EXTRACT_MAX_QUEUE: "2",
      LOG_LEVEL: "warn",
    },
    address,
  );
  client = createClient(ExtractorServiceClient, address, TEST_TOKENS.service);
}, 2 * TEST_TIMEOUT_MS);

afterAll(async () => {
  client?.close();
  await extractor?.stop();
});

function extract(tenant: string, html: string, deadlineMs: number): Promise<ExtractResponse> {
  return promiseClient(client).extract(
    {
      url: "https://shop.example/lamp",
      html,
      schemaJson: SCHEMA,
      taskDescription: "",
      options: undefined,
      tenant,
      learn: false,
      pageWarnings: [],
      wantNextPage: false,
      knownFields: [],
      pageSignature: new Uint8Array(),
      fieldHints: {},
      fieldRules: {},
    },
    { deadline: new Date(Date.now() + deadlineMs) },
  );
}

/** The answer's data, or the problem type it failed with (anything but a WinnowError fails the test). */
async function outcome(call: Promise<ExtractResponse>): Promise<Record<string, unknown> | string> {
  try {
    return JSON.parse((await call).dataJson) as Record<string, unknown>;
  } catch (error) {
    expect(error).toBeInstanceOf(WinnowError);
    return (error as WinnowError).type;
  }
}

describe("extraction workers shared by account", () => {
  it(
    "answers account B while account A's slow pages hold A's share, and refuses A's beyond its queue",
    async () => {
      const settled: string[] = [];
      const noted = (name: string, call: Promise<ExtractResponse>) =>
        outcome(call).then((result) => {
          settled.push(name);
          return result;
        });
      // A holds its one worker and its one place in the queue; the third of its pages to arrive is refused at once.
      const heavy = ["A1", "A2", "A3"].map((name) => noted(name, extract("account-a", HEAVY, HEAVY_DEADLINE_MS)));
      expect(await Promise.race(heavy)).toBe("overloaded");
      // Only now is B's page sent, when A's are all in: one running, one waiting.
      const normal = noted("B", extract("account-b", NORMAL, 120_000));
      expect(await normal).toEqual({ title: "Desk Lamp", price_usd: 19.99 });
      // B was answered before either of A's other extractions ended.
      expect(settled).toHaveLength(2);
      expect(settled[1]).toBe("B");
      const outcomes = await Promise.all(heavy);
      expect(outcomes.filter((result) => result === "overloaded")).toHaveLength(1);
    },
    2.2 * TEST_TIMEOUT_MS,
  );
});
