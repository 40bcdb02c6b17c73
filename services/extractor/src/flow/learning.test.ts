/**
 * What a page teaches its template, through the flow with a scripted model: a record's link the model writes
 * relative to the site's root, where the page's own link is relative to the page, is one address.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlm, startFakeLlm } from "../../../../test/support/fake-llm.js";
import { readLayout } from "./extraction.test-helpers.js";

const SCHEMA = { topics: [{ title: "string", url: "string", views: "integer" }] };
type Topic = [title: string, id: number, views: number];
const PAGES: Topic[][] = [
  [
    ["Forum registration", 675, 2157],
    ["Posting permissions", 553, 877],
    ["Useful links", 549, 1185],
  ],
  [
    ["WTB: seats", 705, 1681],
    ["new one here", 703, 845],
    ["fueling", 702, 412],
  ],
  [
    ["Brake pads", 690, 310],
    ["Wheels for sale", 688, 95],
    ["Club meeting", 680, 1204],
  ],
];

/** A forum's topic list, each topic linked relative to the page ("viewtopic.php?t=675"). */
function forumPage(topics: Topic[]): string {
  const rows = topics
    .map(
      ([title, id, views]) =>
        `<tr><td class="row1"><a class="topictitle" href="viewtopic.php?t=${id}">${title}</a></td><td class="row2">${views}</td></tr>`,
    )
    .join("");
  return `<html><body><div id="header"><a href="/">Forum</a></div><table class="forumline">${rows}</table></body></html>`;
}

describe("learning from a model's reading", () => {
  let model: FakeLlm;
  beforeAll(async () => {
    // The model writes each topic's link from the site's root, as its content shows links.
    model = await startFakeLlm((body) => {
      const text = body.messages.map((m) => m.content ?? "").join("\n");
      const page = PAGES.find((topics) => text.includes(topics[0]![0]))!;
      return { topics: page.map(([title, id, views]) => ({ title, url: `/forum/viewtopic.php?t=${id}`, views })) };
    });
  });
  afterAll(() => model.close());

  it("learns a record's link the model writes from the site's root as the page's link it is", async () => {
    const pages = PAGES.map((topics, i) => ({
      html: forumPage(topics),
      url: `https://forum.example/forum/viewforum.php?f=1&start=${50 * i}`,
    }));
    const answers = await readLayout(model, SCHEMA, pages);
    const calls = answers.map((answer) => answer.modelCalls);
    const last = JSON.parse(answers.at(-1)!.response.dataJson) as Record<string, unknown>;
    // Two pages teach the layout; the third is answered by its template alone, each link as the absolute URL it is.
    expect(calls.map((n) => n > 0)).toEqual([true, true, false]);
    expect(last.topics).toEqual(
      PAGES[2]!.map(([title, id, views]) => ({
        title,
        url: `https://forum.example/forum/viewtopic.php?t=${id}`,
        views,
      })),
    );
  });
});
