import { parseSchema } from "@winnow/platform";
import { describe, expect, it } from "vitest";
import { readTask } from "./task-fields.js";

/** The fields the task asks to produce, and the instructions by field. */
function read(task: string, schema: Record<string, unknown>) {
  const { produced, instructed } = readTask(task, parseSchema(schema));
  return {
    produced: [...produced].sort(),
    instructed: Object.fromEntries([...instructed].map(([name, said]) => [name, said.map(({ hints }) => hints)])),
  };
}

describe("readTask", () => {
  it("asks to produce what an action makes, names as its target, or lists the values of; not what shares its words", () => {
    const task =
      "Summarise the reviews in one sentence. Sentiment is one of: positive, neutral, negative. Translate the product name into French as product_name_fr.";
    const schema = { product_name: "string", summary: "string", sentiment: "string", product_name_fr: "string" };
    expect(read(task, schema).produced).toEqual(["product_name_fr", "sentiment", "summary"]);
  });

  it("takes the object of a verb that produces it, the whole of it, and an object in a language", () => {
    const schema = {
      review_sentiment: "string",
      product_summary: "string",
      title_fr: "string",
      title: "string",
      review_text: "string",
      product_name: "string",
      total_price: "number",
      price: "number",
    };
    const task =
      "Classify the review's sentiment, summarize the product and translate the title. Compute the total price.";
    expect(read(task, schema).produced).toEqual(["product_summary", "review_sentiment", "title_fr", "total_price"]);
    // With no other product of the action, the object itself is rewritten.
    expect(read("Translate the title into German.", { title: "string" }).produced).toEqual(["title"]);
  });

  it("asks nothing of a field for generic instructions", () => {
    for (const task of [
      "Extract the fields accurately.",
      "Be concise; use null when unsure.",
      "Prices are in US dollars or euros.",
    ])
      expect(read(task, { fields: "string", price: "number", summary: "string" }).produced).toEqual([]);
  });

  it("reads units and formats a task asks values in, for the fields whose head word it says", () => {
    expect(read("Prices in US dollars.", { price_usd: "number", price: "number", name: "string" }).instructed).toEqual({
      price_usd: [{ currency: "USD" }],
      price: [{ currency: "USD" }],
    });
    expect(read("Return dates as ISO 8601.", { published_date: "string", title: "string" }).instructed).toEqual({
      published_date: [{ format: "iso8601" }],
    });
    expect(
      read("Weights in grams. Cooking times in minutes.", { weight: "number", cooking_time: "integer" }).instructed,
    ).toEqual({ weight: [{ measureUnit: "grams" }], cooking_time: [{ durationUnit: "minutes" }] });
  });
});
