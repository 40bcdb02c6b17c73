import { parseSchema } from "@winnow/platform";
import { describe, expect, it } from "vitest";
import { loadPage } from "../../page/page.js";
import { numbersIn, numberTokensIn } from "../../page/text-match.js";
import { type GroundingMode, groundAnswer } from "./grounding.js";

const PAGE =
  "# The “Desk” Lamp\n\nPrice: $1,299.50 — was 1.499,00 €. Weight 2 kg.\n\n![photo](https://shop.example/lamp.jpg)";
/** The page the model read PAGE of. */
const HTML = `<h1>The “Desk” Lamp</h1><p>Price: $1,299.50 — was 1.499,00 €. Weight 2 kg.</p><img alt="photo" src="/lamp.jpg">`;

/** Grounds a model's answer against a page (its HTML) and what the model read of it (by default, the page's text). */
function ground(
  tree: ReturnType<typeof parseSchema>,
  answer: Record<string, unknown>,
  mode: GroundingMode,
  { html = HTML, text = PAGE, task = "" }: { html?: string; text?: string; task?: string } = {},
) {
  const page = loadPage(`<html><body>${html}</body></html>`, "https://shop.example/p/lamp");
  return groundAnswer(tree, answer, { page, pageText: text }, task, mode);
}

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
    const { data, warnings } = ground(tree, answer, "warn");
    expect(data).toEqual(answer);
    // The duration is a conversion the name asks for, booleans are not checked.
    expect(warnings.map((w) => `${w.code} ${w.path}`)).toEqual(["ungrounded /colour", "ungrounded /tags/1"]);
  });

  it("nulls unsupported values in strict mode and drops unsupported array items", () => {
    const { data } = ground(tree, answer, "strict");
    expect(data).toMatchObject({ colour: null, tags: ["Lamp"], price: 1299.5 });
  });

  it("leaves fields the task description names alone", () => {
    const schema = parseSchema({ summary: "string", sentiment: "string", title_fr: "string", title: "string" });
    const derived = { summary: "A lamp.", sentiment: "positive", title_fr: "La lampe", title: "Desk Lamp" };
    const { warnings } = ground(schema, derived, "warn", {
      text: "# Desk Lamp",
      task: "Write a summary; sentiment is positive or negative; translate the title into French.",
    });
    expect(warnings).toEqual([]);
  });

  it("knows a field the task names in another form of the word, and no field it does not name", () => {
    const schema = parseSchema({ summary: "string", translation: "string", description: "string" });
    const answer = { summary: "A lamp.", translation: "La lampe", description: "A brass lamp." };
    const { warnings } = ground(schema, answer, "warn", {
      text: "# Desk Lamp",
      task: "Summarize it; translate the name.",
    });
    expect(warnings.map((w) => w.path)).toEqual(["/description"]);
  });

  it("grounds the fields a task shares words with but does not ask to produce", () => {
    const schema = parseSchema({ review_sentiment: "string", product_summary: "string", product_name: "string" });
    const answer = { review_sentiment: "positive", product_summary: "A lamp.", product_name: "Floor Lamp" };
    const task = "Classify the review's sentiment and summarize the product.";
    const { warnings, evidence } = ground(schema, answer, "warn", { text: "# Desk Lamp", task });
    expect(warnings.map((w) => w.path)).toEqual(["/product_name"]);
    expect(evidence.get("/review_sentiment")).toMatchObject({ grounded: false, confidence: 0.5 });
  });

  it("does nothing when off", () => {
    expect(ground(tree, answer, "off", { text: "" })).toMatchObject({ data: answer, warnings: [] });
  });

  it("gives each value's evidence: the page text it was found in, or grounded false and no text", () => {
    const { evidence } = ground(tree, answer, "warn");
    expect(evidence.get("/price")).toEqual({
      source: "model",
      text: "Price: $1,299.50 — was 1.499,00 €. Weight 2 kg.",
      confidence: 0.8,
      grounded: true,
    });
    expect(evidence.get("/title")).toMatchObject({ text: "The “Desk” Lamp", grounded: true });
    expect(evidence.get("/tags/0")).toMatchObject({ grounded: true });
    expect(evidence.get("/colour")).toEqual({ source: "model", confidence: 0.3, grounded: false });
    // Derived (a conversion the name asks for), and a boolean no marker on the page states: the model's own.
    expect(evidence.get("/total_time_minutes")).toEqual({ source: "model", confidence: 0.5, grounded: false });
    expect(evidence.get("/in_stock")).toEqual({ source: "model", confidence: 0.5, grounded: false });
  });
});

describe("grounding at token level", () => {
  const tree = parseSchema({ author: "string", rating: "number", url: "string", image: "string" });

  it("finds a string only as whole words", () => {
    const text = "Announcement: the winners\n\nPhotos by Ann Lee";
    expect(ground(tree, { author: "Ann" }, "warn", { text: "Announcement: the winners" }).ungrounded).toEqual(
      new Set(["author"]),
    );
    const { evidence } = ground(tree, { author: "Ann" }, "warn", { text });
    expect(evidence.get("/author")).toMatchObject({ text: "Photos by Ann Lee", grounded: true });
  });

  it("finds a number only as a number the page writes, not as digits inside another", () => {
    const text = "The A4 lamp, model 2024x, is rated 4.5 of 5.";
    expect(ground(tree, { rating: 4 }, "warn", { text }).warnings.map((w) => w.path)).toEqual(["/rating"]);
    expect(ground(tree, { rating: 4.5 }, "warn", { text }).evidence.get("/rating")).toMatchObject({ grounded: true });
    expect([...numberTokensIn("A4 mp3 2kg rated 4.5, 12 345 items")].sort((a, b) => a - b)).toEqual([
      2, 4.5, 12, 345, 12345,
    ]);
  });

  it("finds a URL only among the page's own links and image sources, resolved against its address", () => {
    const html = `<a href="/jobs/7">Backend Engineer</a><img src="img/team.jpg">`;
    // The invented address is in the model's text too (a model may echo its own), yet not a link of the page.
    const text = "[Backend Engineer](https://shop.example/jobs/7) https://shop.example/jobs/8";
    const own = { url: "https://shop.example/jobs/7", image: "https://shop.example/p/img/team.jpg" };
    expect(ground(tree, own, "strict", { html, text }).data).toMatchObject(own);
    const invented = { url: "https://shop.example/jobs/8", image: "/p/img/team.jpg" };
    const { data, warnings, evidence } = ground(tree, invented, "strict", { html, text });
    expect(data).toMatchObject({ url: null, image: "/p/img/team.jpg" });
    expect(warnings.map((w) => `${w.code} ${w.path}`)).toEqual(["ungrounded /url"]);
    expect(evidence.get("/url")).toMatchObject({ grounded: false });
  });

  it("grounds a boolean by a marker the page shows, and leaves one without a marker unverified", () => {
    const booleans = parseSchema({
      in_stock: "boolean",
      sold_out: "boolean",
      sponsored: "boolean",
      gift_wrap: "boolean",
    });
    const html = `<script type="application/ld+json">${JSON.stringify({
      "@context": "https://schema.org",
      "@type": "Product",
      offers: { "@type": "Offer", availability: "https://schema.org/InStock" },
    })}</script><span class="badge">Sponsored</span><label><input type="checkbox" checked> Gift wrap</label>`;
    const answer = { in_stock: true, sold_out: false, sponsored: true, gift_wrap: true };
    const { evidence, warnings } = ground(booleans, answer, "strict", { html });
    expect(warnings).toEqual([]);
    expect(evidence.get("/in_stock")).toMatchObject({ text: "https://schema.org/InStock", grounded: true });
    expect(evidence.get("/sold_out")).toMatchObject({ grounded: true });
    expect(evidence.get("/sponsored")).toMatchObject({ text: "Sponsored", grounded: true });
    expect(evidence.get("/gift_wrap")).toMatchObject({ text: "Gift wrap", grounded: true });
    // The opposite answers: no marker says them, so they are kept (a yes or no is the model's judgement) unverified.
    const opposite = { in_stock: false, sold_out: true, sponsored: false, gift_wrap: false };
    const read = ground(booleans, opposite, "strict", { html });
    expect(read.data).toEqual(opposite);
    for (const name of Object.keys(opposite)) expect(read.evidence.get(`/${name}`)).toMatchObject({ grounded: false });
    // Text says it too: a "Sold out" badge grounds a false in_stock.
    const soldOut = ground(booleans, { in_stock: false }, "warn", { html: "<button disabled>Sold out</button>" });
    expect(soldOut.evidence.get("/in_stock")).toMatchObject({ text: "Sold out", grounded: true });
  });
});

describe("numbersIn", () => {
  it("reads grouped and decimal numbers in both conventions", () => {
    const numbers = numbersIn("1,234.5 and 1.234,5 and 12 345 and 7");
    for (const n of [1234.5, 12345, 7]) expect(numbers.has(n)).toBe(true);
  });
});
