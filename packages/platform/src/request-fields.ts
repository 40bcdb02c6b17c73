/**
 * What ties a service's log lines to the customer request they serve: the
 * gateway's request id, the scraped site's host, and the API key's id (never
 * the key). The gateway sends them in gRPC metadata; a backend's unary
 * handlers run with them (AsyncLocalStorage), and its logger adds them to
 * every line written meanwhile.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { Metadata } from "@grpc/grpc-js";

export interface RequestFields {
  request_id?: string;
  target_host?: string;
  key_id?: string;
}

const METADATA_KEYS: Record<keyof RequestFields, string> = {
  request_id: "x-request-id",
  target_host: "x-winnow-target-host",
  key_id: "x-winnow-key-id",
};
/** What a caller may send: ids and host names, never long or odd text that would reach logs. */
const VALID_VALUE = /^[A-Za-z0-9._:[\]-]{1,253}$/;

const current = new AsyncLocalStorage<RequestFields>();

/** The fields as gRPC metadata for a downstream call. */
export function requestMetadata(fields: RequestFields): Metadata {
  const metadata = new Metadata();
  for (const [field, key] of Object.entries(METADATA_KEYS)) {
    const value = fields[field as keyof RequestFields];
    if (value) metadata.set(key, value);
  }
  return metadata;
}

/** The fields an incoming call carries (malformed values are left out). */
export function requestFieldsOf(metadata: Metadata): RequestFields {
  const fields: RequestFields = {};
  for (const [field, key] of Object.entries(METADATA_KEYS)) {
    const value = metadata.get(key)[0];
    if (typeof value === "string" && VALID_VALUE.test(value)) fields[field as keyof RequestFields] = value;
  }
  return fields;
}

/** Runs `work` with these fields on every log line it writes. */
export function withRequestFields<T>(fields: RequestFields, work: () => T): T {
  return current.run(fields, work);
}

/** The fields of the request being served here, if any (the logger's mixin). */
export function currentRequestFields(): RequestFields {
  return current.getStore() ?? {};
}
