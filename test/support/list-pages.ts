/**
 * Synthetic listing pages of n records with three fields each, for the tests
 * and the benchmark (bench/src/list-cost.ts) that hold the cost of reading a
 * list linear in its size: a shop's grid (a name link, a price with its
 * currency, a rating) and labelled rows ("Name: ...", "Price: ...").
 */

const WORDS = ["Oak", "Lamp", "Chair", "Desk", "Shelf", "Rug", "Vase", "Clock"];

function nameOf(i: number): string {
  return `${WORDS[i % WORDS.length]} ${WORDS[(i * 3) % WORDS.length]} model ${i}`;
}

function priceOf(i: number): string {
  return `${(i % 500) + 1}.${String(i % 100).padStart(2, "0")}`;
}

function ratingOf(i: number): string {
  return (1 + (i % 40) / 10).toFixed(1);
}

const shell = (body: string, head = "") =>
  `<!doctype html><html><head><title>Catalogue</title>${head}</head><body><header><nav><ul><li><a href="/">Home</a></li><li><a href="/deals">Deals</a></li><li><a href="/help">Help</a></li></ul></nav></header><main><h1>Catalogue</h1>${body}</main><footer><p>Shop Inc.</p></footer></body></html>`;

/**
 * A shop's grid: n cards, each a name linking to its page, a price in dollars and a rating out of 5; records from
 * `from` on, and a rel=next link to `next` when given (a listing's page).
 */
export function catalogueGrid(n: number, { from = 0, next }: { from?: number; next?: string } = {}): string {
  const cards: string[] = [];
  for (let i = from; i < from + n; i++)
    cards.push(
      `<li class="product"><div class="card"><a class="name" href="/p/${i}">${nameOf(i)}</a><div class="price"><span>$${priceOf(i)}</span></div><div class="rating">${ratingOf(i)} out of 5 stars</div></div></li>`,
    );
  return shell(`<ul class="grid">${cards.join("")}</ul>`, next ? `<link rel="next" href="${next}">` : "");
}

/** n records of labelled rows: "Name: ...", "Price: ...", "Rating: ..." lines. */
export function labelledRows(n: number): string {
  const records: string[] = [];
  for (let i = 0; i < n; i++)
    records.push(
      `<div class="item"><p>Name: ${nameOf(i)}</p><p>Price: $${priceOf(i)}</p><p>Rating: ${ratingOf(i)}</p></div>`,
    );
  return shell(records.join(""));
}

/** The schema both pages answer: a list of records of three fields. */
export const LIST_SCHEMA = { products: [{ name: "string", price_usd: "number", rating: "number" }] };
