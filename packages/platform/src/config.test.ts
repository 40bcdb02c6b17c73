import { describe, expect, it } from "vitest";
import { ConfigError, env, loadConfig } from "./config.js";

const shape = {
  PORT: env.port(8080),
  WORKERS: env.positiveInt(4, 64),
  TARGET: env.grpcTarget("127.0.0.1:50051"),
  VERBOSE: env.boolean(false),
  LLM_API_KEY: env.host("none"),
};

describe("loadConfig", () => {
  it("applies defaults and treats empty strings as unset", () => {
    expect(loadConfig(shape, { PORT: "", VERBOSE: "yes" })).toEqual({
      PORT: 8080,
      WORKERS: 4,
      TARGET: "127.0.0.1:50051",
      VERBOSE: true,
      LLM_API_KEY: "none",
    });
  });

  it("names every bad variable in one message", () => {
    const load = () => loadConfig(shape, { PORT: "http", WORKERS: "100", TARGET: "no port", VERBOSE: "maybe" });
    expect(load).toThrow(ConfigError);
    const message = (() => {
      try {
        load();
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(message).toMatch(/PORT: .*"http"/);
    expect(message).toMatch(/WORKERS: must be at most 64/);
    expect(message).toMatch(/TARGET: must be host:port/);
    expect(message).toMatch(/VERBOSE: must be true or false/);
  });

  it("never echoes a secret's value", () => {
    const strict = { LLM_API_KEY: env.host("x").pipe(env.port(1)) };
    expect(() => loadConfig(strict, { LLM_API_KEY: "sk-very-secret" })).toThrow(/<redacted>/);
  });

  it("accepts gRPC targets with a scheme", () => {
    expect(loadConfig(shape, { TARGET: "dns:///auth.winnow.svc:50051" }).TARGET).toBe("dns:///auth.winnow.svc:50051");
  });
});
