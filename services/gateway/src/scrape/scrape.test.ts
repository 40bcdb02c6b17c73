import { Engine, ExtractResponse } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";
import { describe, expect, it } from "vitest";
import { answerBody } from "./scrape.js";
import type { ScrapeOutcome } from "./scrape-page.js";

describe("answerBody", () => {
  it("states a conflict's other value as the value itself, with where it was read", () => {
    const result = ExtractResponse.fromPartial({
      dataJson: '{"title":"Mountain Stew"}',
      engine: Engine.ENGINE_LLM,
      evidence: [
        {
          pointer: "/title",
          source: "model",
          text: "Also known as Mountain Stew.",
          confidence: 0.8,
          grounded: true,
          status: "conflict",
          alternative: { valueJson: '"Ridge Stew"', source: "json-ld", text: "Ridge Stew", grounded: true },
        },
      ],
      fieldStatus: [{ pointer: "/title", status: "conflict" }],
    });
    const outcome = { result, cache: { page: "miss", data: "miss", ageSeconds: 0 }, screenshot: undefined };
    const body = JSON.parse(answerBody(outcome as ScrapeOutcome, { evidence: true, markdown: false })) as {
      evidence: Record<string, unknown>;
    };
    expect(body.evidence["/title"]).toEqual({
      source: "model",
      text: "Also known as Mountain Stew.",
      confidence: 0.8,
      grounded: true,
      status: "conflict",
      alternative: { value: "Ridge Stew", source: "json-ld", text: "Ridge Stew", grounded: true },
    });
  });
});
