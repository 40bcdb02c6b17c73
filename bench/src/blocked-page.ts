/**
 * A recipe page as sites serve them: the complete JSON-LD in the first response, then a dozen
 * third-party scripts, stylesheets and images that never load here. `blocked` names where they point.
 */
export function recipePageWithBlockedResources(n: number, blocked: readonly string[]): string {
  const tags = blocked.flatMap((origin, i) => [
    `<link rel="stylesheet" href="${origin}/css/theme-${i}.css?page=${n}">`,
    `<script src="${origin}/js/tracker-${i}.js?page=${n}"></script>`,
  ]);
  const images = blocked.map((origin, i) => `<img src="${origin}/img/photo-${i}.jpg?page=${n}" alt="">`).join("");
  const recipe = {
    "@context": "https://schema.org",
    "@type": "Recipe",
    name: `Lemon Tart ${n}`,
    author: { "@type": "Person", name: "Ada Baker" },
    totalTime: "PT45M",
    recipeIngredient: ["3 lemons", "200 g sugar", "4 eggs"],
    recipeInstructions: [{ "@type": "HowToStep", text: "Whisk everything and bake for 30 minutes." }],
  };
  return `<!doctype html><html><head><title>Lemon Tart ${n}</title>
    <script type="application/ld+json">${JSON.stringify(recipe)}</script>
    ${tags.join("\n    ")}
    </head><body><h1>Lemon Tart ${n}</h1><p>By Ada Baker</p>${images}
    <ul><li>3 lemons</li><li>200 g sugar</li><li>4 eggs</li></ul><p>Whisk everything and bake for 30 minutes.</p>
    <script>document.body.dataset.rendered = "yes";</script></body></html>`;
}
