import { describe, expect, it } from "vitest";
import type { Case } from "./corpus.js";
import { originalName, paraphraseCases } from "./paraphrase.js";

const item: Case = {
  id: "recipes/example",
  corpus: "recipe-scrapers",
  site: "example",
  page: "pages/example.html",
  schema: { recipe_title: "string", ingredient_groups: [{ group_name: "string", ingredients: ["string"] }] },
  expected: {
    recipe_title: "Dip",
    ingredient_groups: [{ group_name: "Dip", ingredients: ["feta"] }],
  },
};
const names = { recipe_title: "recipe_name", group_name: "section", ingredients: "ingredient_list" };

describe("paraphraseCases", () => {
  it("renames fields in the schema and the expected values, in list items too", () => {
    const [renamed] = paraphraseCases([item], names);
    expect(renamed!.schema).toEqual({
      recipe_name: "string",
      ingredient_groups: [{ section: "string", ingredient_list: ["string"] }],
    });
    expect(renamed!.expected).toEqual({
      recipe_name: "Dip",
      ingredient_groups: [{ section: "Dip", ingredient_list: ["feta"] }],
    });
  });

  it("keeps alternatives and values as they are", () => {
    const [renamed] = paraphraseCases([{ ...item, expected: { recipe_title: { $any: ["a", "b"] } } }], names);
    expect(renamed!.expected).toEqual({ recipe_name: { $any: ["a", "b"] } });
  });

  it("finds the corpus's name of a renamed field", () => {
    expect(originalName(names, "section")).toBe("group_name");
    expect(originalName(names, "other")).toBe("other");
  });
});
