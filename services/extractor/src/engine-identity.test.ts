import { loadConfig } from "@winnow/platform";
import { describe, expect, it } from "vitest";
import { configShape } from "./config.js";
import { engineIdentity } from "./engine-identity.js";

const identity = (env: Record<string, string>) =>
  engineIdentity(loadConfig(configShape, { WINNOW_SERVICE_TOKEN: "t".repeat(32), ...env }));

describe("engineIdentity", () => {
  it("names the model, and keeps its version while nothing that shapes answers changes", async () => {
    const withModel = { LLM_BASE_URL: "http://127.0.0.1:9/v1", LLM_MODEL: "model-a" };
    expect(await identity(withModel)).toEqual(await identity(withModel));
    expect((await identity(withModel)).model).toBe("model-a");
    expect((await identity({})).model).toBe("");
  });

  it("changes its version with the model or a setting that shapes answers", async () => {
    const base = await identity({ LLM_BASE_URL: "http://127.0.0.1:9/v1", LLM_MODEL: "model-a" });
    const versions = await Promise.all(
      [
        { LLM_BASE_URL: "http://127.0.0.1:9/v1", LLM_MODEL: "model-b" },
        { LLM_BASE_URL: "http://127.0.0.1:9/v1", LLM_MODEL: "model-a", EXTRACT_HYBRID: "off" },
        { LLM_BASE_URL: "http://127.0.0.1:9/v1", LLM_MODEL: "model-a", EXTRACT_GROUNDING: "strict" },
        {},
      ].map(async (env) => (await identity(env)).engineVersion),
    );
    expect(new Set([base.engineVersion, ...versions]).size).toBe(5);
  });
});
