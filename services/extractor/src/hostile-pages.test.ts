/**
 * Hostile pages through the extractor as deployed: its build as its own
 * process, called over gRPC. A page answers with a value or a clear problem,
 * never INTERNAL, and a page that costs more CPU than its deadline ends at
 * that deadline without holding up the other requests.
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
      EXTRACT_WORKERS: "2",
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

function extract(html: string, deadlineMs: number): Promise<ExtractResponse> {
  return promiseClient(client).extract(
    {
      url: "https://shop.example/lamp",
      html,
      schemaJson: SCHEMA,
      taskDescription: "",
      options: undefined,
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

describe("hostile pages over gRPC", () => {
  it(
    "answers 100,000 nested elements and 200,000 siblings with their values",
    async () => {
      const nested = `<html><body><h1>Desk Lamp</h1><p>Price: $19.99</p>${"<span>".repeat(100_000)}deep${"</span>".repeat(100_000)}</body></html>`;
      const siblings = `<html><body><h1>Desk Lamp</h1><p>Price: $19.99</p><div>${"<i>x</i>".repeat(200_000)}</div></body></html>`;
      for (const html of [nested, siblings])
        expect(await outcome(extract(html, 60_000))).toEqual({ title: "Desk Lamp", price_usd: 19.99 });
    },
    2.2 * TEST_TIMEOUT_MS,
  );

  it(
    "ends a CPU-heavy extraction at its deadline while a normal one beside it is answered",
    async () => {
      // 50,000 nested <div>s cost the HTML parser tens of seconds of CPU (its scope checks walk the open elements).
      const heavy = `<html><body>${"<div>".repeat(50_000)}x${"</div>".repeat(50_000)}</body></html>`;
      const order: string[] = [];
      const heavyCall = outcome(extract(heavy, 3_000)).then((result) => {
        order.push("heavy");
        return result;
      });
      const normalCall = outcome(extract(NORMAL, 60_000)).then((result) => {
        order.push("normal");
        return result;
      });
      expect(await normalCall).toEqual({ title: "Desk Lamp", price_usd: 19.99 });
      expect(await heavyCall).toBe("deadline-exceeded");
      expect(order).toEqual(["normal", "heavy"]);
      // The worker that was ended is replaced: the extractor goes on answering.
      expect(await outcome(extract(NORMAL, 60_000))).toEqual({ title: "Desk Lamp", price_usd: 19.99 });
    },
    2.2 * TEST_TIMEOUT_MS,
  );
});
