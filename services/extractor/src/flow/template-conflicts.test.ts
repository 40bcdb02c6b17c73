import { describe, expect, it } from "vitest";
import { loadPage } from "../page/page.js";
import { SchemaCache } from "../schema/schema-cache.js";
import type { TemplateFieldAnswer } from "../templates/learner.js";
import { conflictsWithPage } from "./template-conflicts.js";

const held = (value: unknown): TemplateFieldAnswer => ({
  value,
  selector: "",
  locator: value === null ? "absent" : "h1[0]",
  text: "",
  confidence: 0.9,
});

describe("conflictsWithPage", () => {
  const tree = new SchemaCache().get(
    JSON.stringify({ title: "string", date_posted_iso8601: "string", salary: "string" }),
  ).tree;
  const page = loadPage(
    `<html><body><h1>Backend Engineer</h1><dl><dt>Skills:</dt><dd>Java, SQL</dd></dl><dl><dt>Date:</dt><dd>11-24-2010</dd></dl></body></html>`,
    "https://jobs.example/7",
  );

  it("lets a field held absent yield where the builtin engine reads it on the page", () => {
    // A date read beside its label is not proven across sites against a template's value, but a null is no value.
    const answers = new Map([
      ["title", held("Backend Engineer")],
      ["date_posted_iso8601", held(null)],
      ["salary", held(null)],
    ]);
    expect(conflictsWithPage(tree, page, answers)).toEqual(["date_posted_iso8601"]);
  });
});
