import { ConfigError, loadConfig } from "@winnow/platform";
import { describe, expect, it } from "vitest";
import { generateApiKey, parseApiKey } from "./api-key.js";
import { authConfigShape } from "./config.js";

const TOKENS = { WINNOW_GATEWAY_TOKEN: "g".repeat(32), WINNOW_ADMIN_TOKEN: "a".repeat(32) };

describe("auth configuration", () => {
  it("refuses to start without its callers' tokens, or with a short one, naming the variables and not echoing them", () => {
    expect(() => loadConfig(authConfigShape, {})).toThrow(
      /WINNOW_GATEWAY_TOKEN: is required: the shared secret of internal gRPC calls, at least 32 characters.*\(unset\)\n {2}WINNOW_ADMIN_TOKEN: is required/,
    );
    let message = "";
    try {
      loadConfig(authConfigShape, { ...TOKENS, WINNOW_ADMIN_TOKEN: "short-secret" });
    } catch (error) {
      message = (error as ConfigError).message;
    }
    expect(message).toContain(
      'WINNOW_ADMIN_TOKEN: must be at least 32 characters (e.g. openssl rand -base64 32); during a rotation, several such values separated by commas (got "<redacted>")',
    );
    expect(message).not.toContain("short-secret");
  });

  it("takes a caller token rotating as 'new,old': the first is sent, both are accepted", () => {
    const old = "o".repeat(32);
    const config = loadConfig(authConfigShape, { ...TOKENS, WINNOW_GATEWAY_TOKEN: ` ${"n".repeat(32)} , ${old}` });
    expect(config.WINNOW_GATEWAY_TOKEN).toEqual({ current: "n".repeat(32), accepted: ["n".repeat(32), old] });
    expect(() => loadConfig(authConfigShape, { ...TOKENS, WINNOW_GATEWAY_TOKEN: `${old},short` })).toThrow(
      /WINNOW_GATEWAY_TOKEN: must be at least 32 characters/,
    );
  });

  it("has defaults for everything else", () => {
    expect(loadConfig(authConfigShape, TOKENS)).toEqual({
      WINNOW_GATEWAY_TOKEN: { current: TOKENS.WINNOW_GATEWAY_TOKEN, accepted: [TOKENS.WINNOW_GATEWAY_TOKEN] },
      WINNOW_ADMIN_TOKEN: { current: TOKENS.WINNOW_ADMIN_TOKEN, accepted: [TOKENS.WINNOW_ADMIN_TOKEN] },
      GRPC_HOST: "127.0.0.1",
      GRPC_PORT: 50051,
      METRICS_HOST: "127.0.0.1",
      METRICS_PORT: 9465,
      SHUTDOWN_GRACE_MS: 10_000,
      GRPC_MAX_CONNECTION_AGE_MS: 300_000,
      GRPC_MAX_CONNECTION_AGE_GRACE_MS: 600_000,
      LOG_LEVEL: "info",
      WINNOW_DATA_DIR: ".data",
      SESSION_TTL_HOURS: 12,
      WEBHOOK_SECRET_GRACE_HOURS: 24,
      PLAN_REQUESTS_PER_MINUTE: 60,
      PLAN_MAX_CONCURRENT_SCRAPES: 4,
      WINNOW_DEV_ACCOUNT: true,
      KEY_CACHE_LEASE_MS: 1_000,
    });
  });

  it("takes a well-formed WINNOW_DEV_API_KEY as a parsed key", () => {
    const key = generateApiKey();
    expect(loadConfig(authConfigShape, { ...TOKENS, WINNOW_DEV_API_KEY: key.plaintext }).WINNOW_DEV_API_KEY).toEqual(
      key,
    );
  });

  it("refuses a malformed WINNOW_DEV_API_KEY, suggesting a usable key and not echoing the bad one", () => {
    let error: unknown;
    try {
      loadConfig(authConfigShape, { ...TOKENS, WINNOW_DEV_API_KEY: "wnw_my-secret-dev-key" });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as ConfigError).message;
    expect(message).toMatch(/WINNOW_DEV_API_KEY: must be a well-formed Winnow API key/);
    expect(message).not.toContain("my-secret-dev-key");
    const suggested = /such as (\S+)/.exec(message)?.[1];
    expect(parseApiKey(suggested ?? "")).toBeDefined();
  });

  it("takes WINNOW_ENCRYPTION_KEY as 32 bytes and refuses anything else without echoing it", () => {
    const key = Buffer.alloc(32, 7);
    expect(
      loadConfig(authConfigShape, { ...TOKENS, WINNOW_ENCRYPTION_KEY: key.toString("hex") }).WINNOW_ENCRYPTION_KEY,
    ).toEqual([key]);
    const next = Buffer.alloc(32, 8);
    expect(
      loadConfig(authConfigShape, {
        ...TOKENS,
        WINNOW_ENCRYPTION_KEY: `${next.toString("base64")},${key.toString("hex")}`,
      }).WINNOW_ENCRYPTION_KEY,
    ).toEqual([next, key]);
    let message = "";
    try {
      loadConfig(authConfigShape, { ...TOKENS, WINNOW_ENCRYPTION_KEY: "hunter2-secret" });
    } catch (caught) {
      message = (caught as ConfigError).message;
    }
    expect(message).toMatch(/WINNOW_ENCRYPTION_KEY: must be 32 bytes/);
    expect(message).not.toContain("hunter2");
  });

  it("refuses a DATABASE_URL that is not a Postgres URL", () => {
    expect(() => loadConfig(authConfigShape, { ...TOKENS, DATABASE_URL: "mysql://localhost/db" })).toThrow(
      /DATABASE_URL: must be a postgres/,
    );
  });
});
