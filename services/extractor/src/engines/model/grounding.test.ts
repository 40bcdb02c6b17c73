import { parseSchema } from "@winnow/platform";
import { describe, expect, it } from "vitest";
import { numbersIn } from "../../page/text-match.js";
import { groundAnswer } from "./grounding.js";

const PAGE =
  "# The “Desk” Lamp\n\nPrice: $1,299.50 — was 1.499,00 €. Weight 2 kg.\n\n![photo](https://shop.example/lamp.jpg)";

describe("groundAnswer", () => {
  const tree = parseSchema({
    title: "string",
    price: "number",
    old_price: "number",
    image_url: "string",
    colour: "string",
    tags: ["string"],
    total_time_minutes: "integer",
    in_stock: "boolean",
  });
  const answer = {
    title: 'the "desk" lamp',
    price: 1299.5,
    old_price: 1499,
    image_url: "https://shop.example/lamp.jpg",
    colour: "Crimson",
    tags: ["Lamp", "Vintage"],
    total_time_minutes: 90,
    in_stock: true,
  };

  it("accepts values on the page, in normalised and common written forms, and warns about the rest", () => {
    const { data, warnings } = groundAnswer(tree, answer, PAGE, "", "warn");
    expect(data).toEqual(answer);
    // The duration is a conversion the name asks for, booleans are not checked.
    expect(warnings.map((w) => `${w.code} ${w.path}`)).toEqual(["ungrounded /colour", "ungrounded /tags/1"]);
  });

  it("nulls unsupported values in strict mode and drops unsupported array items", () => {
    const { data } = groundAnswer(tree, answer, PAGE, "", "strict");
    expect(data).toMatchObject({ colour: null, tags: ["Lamp"], price: 1299.5 });
  });

  it("leaves fields the task description names alone", () => {
    const schema = parseSchema({ summary: "string", sentiment: "string", title_fr: "string", title: "string" });
    const derived = { summary: "A lamp.", sentiment: "positive", title_fr: "La lampe", title: "Desk Lamp" };
    const { warnings } = groundAnswer(
      schema,
      derived,
      "# Desk Lamp",
      "Write a summary; sentiment is positive or negative; translate the title into French.",
      "warn",
    );
    expect(warnings).toEqual([]);
  });

  it("knows a field the task names in another form of the word, and no field it does not name", () => {
    const schema = parseSchema({ summary: "string", translation: "string", description: "string" });
    const answer = { summary: "A lamp.", translation: "La lampe", description: "A brass lamp." };
    const { warnings } = groundAnswer(schema, answer, "# Desk Lamp", "Summarize it; translate the name.", "warn");
    expect(warnings.map((w) => w.path)).toEqual(["/description"]);
  });

  it("grounds the fields a task shares words with but does not ask to produce", () => {
    const schema = parseSchema({ review_sentiment: "string", product_summary: "string", product_name: "string" });
    const answer = { review_sentiment: "positive", product_summary: "A lamp.", product_name: "Floor Lamp" };
    const task = "Classify the review's sentiment and summarize the product.";
    const { warnings, evidence } = groundAnswer(schema, answer, "# Desk Lamp", task, "warn");
    expect(warnings.map((w) => w.path)).toEqual(["/product_name"]);
    expect(evidence.get("/review_sentiment")).toMatchObject({ grounded: false, confidence: 0.5 });
  });

  it("does nothing when off", () => {
    expect(groundAnswer(tree, answer, "", "", "off")).toMatchObject({ data: answer, warnings: [] });
  });

  it("gives each value's evidence: the page text it was found in, or grounded false and no text", () => {
    const { evidence } = groundAnswer(tree, answer, PAGE, "", "warn");
    expect(evidence.get("/price")).toEqual({
      source: "model",
      text: "Price: $1,299.50 — was 1.499,00 €. Weight 2 kg.",
      confidence: 0.8,
      grounded: true,
    });
    expect(evidence.get("/title")).toMatchObject({ text: "The “Desk” Lamp", grounded: true });
    expect(evidence.get("/tags/0")).toMatchObject({ grounded: true });
    expect(evidence.get("/colour")).toEqual({ source: "model", confidence: 0.3, grounded: false });
    // Derived (a conversion the name asks for) and booleans: the model's own, with no page text to show.
    expect(evidence.get("/total_time_minutes")).toEqual({ source: "model", confidence: 0.5, grounded: false });
    expect(evidence.get("/in_stock")).toEqual({ source: "model", confidence: 0.5, grounded: false });
  });
});

describe("numbersIn", () => {
  it("reads grouped and decimal numbers in both conventions", () => {
    const numbers = numbersIn("1,234.5 and 1.234,5 and 12 345 and 7");
    for (const n of [1234.5, 12345, 7]) expect(numbers.has(n)).toBe(true);
  });
});
