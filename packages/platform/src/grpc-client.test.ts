import { expect, it } from "vitest";
import { grpcTarget } from "./grpc-client.js";

it("turns host:port into a dns:/// target and leaves full targets alone", () => {
  expect(grpcTarget("auth:50051")).toBe("dns:///auth:50051");
  expect(grpcTarget("127.0.0.1:50051")).toBe("dns:///127.0.0.1:50051");
  expect(grpcTarget("[::1]:50051")).toBe("dns:///[::1]:50051");
  expect(grpcTarget("dns:///auth.ns.svc:50051")).toBe("dns:///auth.ns.svc:50051");
  expect(grpcTarget("unix:///run/auth.sock")).toBe("unix:///run/auth.sock");
});
