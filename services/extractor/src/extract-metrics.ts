/**
 * The extractor's metrics: extractions by engine, the model's tokens in and out, fields answered by learned templates.
 */
import { meter } from "@winnow/platform";
import { Engine, type ExtractResponse } from "@winnow/platform/gen/winnow/extractor/v1/extractor.js";

const extractions = meter.createCounter("winnow.extractions", {
  description: "Extractions answered, by engine: builtin, llm or template",
});
const tokens = meter.createCounter("winnow.model.tokens", {
  description: "Model tokens, by type: input (sent) or output (received)",
});
const templated = meter.createCounter("winnow.template.fields", {
  description: "Fields a learned template answered, before the engines",
});

export function countExtraction(response: ExtractResponse, templatedFields: number): void {
  if (templatedFields > 0) templated.add(templatedFields);
  extractions.add(1, {
    "winnow.engine":
      response.engine === Engine.ENGINE_LLM
        ? "llm"
        : response.engine === Engine.ENGINE_TEMPLATE
          ? "template"
          : "builtin",
  });
  if (response.usage) {
    tokens.add(response.usage.promptTokens, { "gen_ai.token.type": "input" });
    tokens.add(response.usage.completionTokens, { "gen_ai.token.type": "output" });
  }
}
