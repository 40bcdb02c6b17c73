import { expect, it } from "vitest";
import { loadPage } from "./page.js";
import { PageStatements } from "./stated.js";

const statements = (body: string) => new PageStatements(loadPage(`<html><body>${body}</body></html>`, ""));

it("finds a value from structured data in a short shown element, however often the page repeats that element", () => {
  const repeated = "<div><p>Price: $129.99</p></div>".repeat(30);
  const page = statements(`${repeated}<div><span>Published March 3, 2024</span></div><p>Trail Shoe</p>`);
  expect(page.states(129.99, undefined, false)).toBe(true);
  expect(page.states("2024-03-03", undefined, false)).toBe(true);
  expect(page.states("Trail Shoe", undefined, false)).toBe(true);
  expect(page.states(130, undefined, false)).toBe(false);
  expect(page.states("2024-03-04", undefined, false)).toBe(false);
});

it("reads numbers and dates only in short elements, and nothing hidden", () => {
  const long = `<p>${"word ".repeat(20)} 4711 on March 3, 2024</p>`;
  const page = statements(`${long}<p hidden>Price: 55</p><div style="display:none"><span>1999</span></div>`);
  expect(page.states(4711, undefined, false)).toBe(false);
  expect(page.states("2024-03-03", undefined, false)).toBe(false);
  expect(page.states(55, undefined, false)).toBe(false);
  expect(page.states(1999, undefined, false)).toBe(false);
});
