/**
 * A page as a site built with CSS-in-JS, hashed or utility classes shows it to a reader: every class and id replaced
 * by a meaningless token. The same name always gets the same token (on every page, as one site's build would), and
 * what refers to an id (labels, aria references, table headers, in-page links) follows it, so the page's structure
 * and text are untouched and only the words in its names are gone. Stylesheets keep their old names: the extractor
 * does not read them.
 */
import { createHash } from "node:crypto";
import { load } from "cheerio";

/** Attributes whose value is a space-separated list of ids. */
const ID_LISTS = [
  "for",
  "aria-labelledby",
  "aria-describedby",
  "aria-controls",
  "aria-owns",
  "headers",
  "list",
  "form",
];

/** A token for a name: letters and digits from its hash, starting with a letter, as generated class names look. */
function token(name: string): string {
  const digest = createHash("sha256").update(`winnow-scramble:${name}`).digest("hex");
  return `x${BigInt(`0x${digest.slice(0, 12)}`).toString(36)}`;
}

const words = (value: string) => value.split(/\s+/).filter(Boolean);

/** The page with every class and id replaced by its token. */
export function scrambleNames(html: string): string {
  const $ = load(html);
  $("[class]").each((_, element) => {
    $(element).attr(
      "class",
      words($(element).attr("class") ?? "")
        .map(token)
        .join(" "),
    );
  });
  $("[id]").each((_, element) => {
    $(element).attr("id", token($(element).attr("id") ?? ""));
  });
  for (const name of ID_LISTS) {
    $(`[${name}]`).each((_, element) => {
      $(element).attr(
        name,
        words($(element).attr(name) ?? "")
          .map(token)
          .join(" "),
      );
    });
  }
  $('[href^="#"]').each((_, element) => {
    const target = ($(element).attr("href") ?? "").slice(1);
    if (target) $(element).attr("href", `#${token(decodeURIComponent(target))}`);
  });
  return $.html();
}
