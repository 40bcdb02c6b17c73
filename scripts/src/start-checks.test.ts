import { createServer, type Server } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePorts } from "./ports.js";
import { placementFrom, STACK_DEFAULTS, startRefusal } from "./start-checks.js";

let held: Server;
let heldPort: number;

beforeAll(async () => {
  held = createServer();
  await new Promise<void>((resolve) => held.listen(0, "127.0.0.1", resolve));
  heldPort = (held.address() as import("node:net").AddressInfo).port;
});

afterAll(() => held?.close());

describe("the checks npm start makes before it builds", () => {
  it("names a metrics port in use as the metrics port of its service", async () => {
    const [port, auth, renderer, extractor, jobs] = await freePorts(5);
    const refusal = await startRefusal({
      ...STACK_DEFAULTS,
      PORT: port!,
      AUTH_GRPC_PORT: auth!,
      RENDERER_GRPC_PORT: renderer!,
      EXTRACTOR_GRPC_PORT: extractor!,
      JOBS_GRPC_PORT: jobs!,
      // The renderer's metrics port (base + 2) is the one held.
      METRICS_PORT_BASE: heldPort - 2,
    });
    expect(refusal).toContain(`port ${heldPort} (the renderer's metrics port, METRICS_PORT_BASE+2) in use`);
  });

  it("refuses a value that is not a port, and a metrics base without five ports from it", () => {
    expect(placementFrom({ PORT: "80a" })).toBe('PORT must be a port number (0-65535), not "80a".');
    expect(placementFrom({ METRICS_PORT_BASE: "65532" })).toBe(
      'METRICS_PORT_BASE must be a port number (0-65531), not "65532".',
    );
    expect(placementFrom({ PORT: "9000", WINNOW_DATA_DIR: ".data-2" })).toMatchObject({
      PORT: 9000,
      WINNOW_DATA_DIR: ".data-2",
    });
  });
});
