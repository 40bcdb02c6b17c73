/**
 * The main list among two on one page, chosen by the values its columns
 * hold for the schema's item fields, weighed with its size: never a side
 * rail, a menu or a comment box where a list that answers better exists.
 * Class names here say nothing (hashed), so only structure and values decide.
 */
import { parseSchema } from "@winnow/platform";
import { describe, expect, it } from "vitest";
import { loadPage } from "../../../page/page.js";
import { extractBuiltin } from "../index.js";

function records(html: string, schema: Record<string, unknown>): Record<string, unknown>[] {
  const tree = parseSchema(schema);
  return extractBuiltin(tree, loadPage(html, "https://shop.example/c/lamps"))[tree.fields[0]!.name] as Record<
    string,
    unknown
  >[];
}

describe("the main list among two on one page", () => {
  it("takes the product grid with prices over a rail of recently viewed links", () => {
    const rail = ["Garden chair", "Parasol", "Plant pot", "Bird feeder", "Hammock"]
      .map((name, i) => `<li class="a9f"><a href="/p/r${i}">${name}</a></li>`)
      .join("");
    const grid = [
      ["Desk lamp", "$24.99"],
      ["Floor lamp", "$89.00"],
      ["Wall light", "$35.50"],
    ]
      .map(
        ([name, price], i) =>
          `<div class="k2m"><a href="/p/${i}"><span class="t0">${name}</span></a><span class="z7">${price}</span></div>`,
      )
      .join("");
    const html = `<div class="q1"><h3>Recently viewed</h3><ul class="q2">${rail}</ul></div><main><div class="q3">${grid}</div></main>`;
    const found = records(html, { products: [{ name: "string", price: "number" }] });
    expect(found.map(({ name }) => name)).toEqual(["Desk lamp", "Floor lamp", "Wall light"]);
    expect(found.map(({ price }) => price)).toEqual([24.99, 89, 35.5]);
  });

  it("takes the answers with their votes over the question's comments, though the comments come first", () => {
    const comments = [
      ["Which version of the library is this?", "kim"],
      ["Please add the error message.", "lee"],
      ["Duplicate of an older question.", "ana"],
    ]
      .map(
        ([text, user]) =>
          `<li class="c1"><span class="c2">${text}</span> – <a class="c3" href="/users/${user}">${user}</a></li>`,
      )
      .join("");
    const answers = [
      [12, "Use the streaming parser: it reads the document once and keeps memory flat.", "bo"],
      [7, "Split the input first, then parse each part on its own worker thread.", "cy"],
      [3, "Upgrade to the latest version, where this bug is fixed in the tokenizer.", "di"],
    ]
      .map(
        ([votes, text, user]) =>
          `<div class="a1"><div class="a2"><div class="a3">${votes}</div></div><div class="a4"><p>${text}</p>
            <div class="a5">answered by <a href="/users/${user}">${user}</a></div></div></div>`,
      )
      .join("");
    const html = `<main><h1>Parsing large files</h1><ul class="c0">${comments}</ul><div class="a0"><h2>3 Answers</h2>${answers}</div></main>`;
    const found = records(html, { answers: [{ votes: "integer", text: "string", author: "string" }] });
    expect(found.map(({ votes }) => votes)).toEqual([12, 7, 3]);
    expect(found.map(({ author }) => author)).toEqual(["bo", "cy", "di"]);
  });
});
