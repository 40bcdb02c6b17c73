import { Metadata } from "@grpc/grpc-js";
import { expect, it } from "vitest";
import { currentRequestFields, requestFieldsOf, requestMetadata, withRequestFields } from "./request-fields.js";

it("carries a request's id, target host and key id through gRPC metadata, and leaves malformed values out", () => {
  const fields = { request_id: "req-1", target_host: "shop.example", key_id: "AbC123" };
  expect(requestFieldsOf(requestMetadata(fields))).toEqual(fields);
  const odd = new Metadata();
  odd.set("x-request-id", `two words ${"x".repeat(300)}`);
  odd.set("x-winnow-target-host", "[::1]");
  expect(requestFieldsOf(odd)).toEqual({ target_host: "[::1]" });
});

it("gives the fields to everything a request's work runs, and nothing outside it", async () => {
  const seen = await withRequestFields({ request_id: "req-2" }, async () => {
    await new Promise((resolve) => setTimeout(resolve, 1));
    return currentRequestFields();
  });
  expect(seen).toEqual({ request_id: "req-2" });
  expect(currentRequestFields()).toEqual({});
});
