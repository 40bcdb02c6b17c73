/**
 * What field names mean: where each concept lives in structured data, and
 * the words pages use to label it. Generic vocabulary (schema.org property
 * names, common label words), never tied to a site.
 */
/**
 * Where a concept's value may be: a JSON-LD property path (arrays on the way
 * take their first item), a meta tag, or a part of the page the engine reads
 * for itself (builtin/page-values.ts): its heading (title, og:title and <h1>
 * reconciled), the byline's date and author beside it, a product's offer
 * (structured data and the buy box weighed: builtin/offer.ts), the product
 * id in the page's address (builtin/address-id.ts) and a rating written for
 * readers (builtin/rating-text.ts).
 */
export type Place =
  | { kind: "entity"; path: string }
  | { kind: "meta"; name: string }
  | { kind: "page"; part: PagePart }
  | { kind: "sum"; paths: string[] };
export type PagePart =
  | "headline"
  | "date"
  | "author"
  | "price"
  | "availability"
  | "currency"
  | "address id"
  | "rating"
  | "review count"
  | "maker"
  | "lone paragraph";

export const entity = (path: string): Place => ({ kind: "entity", path });
const meta = (name: string): Place => ({ kind: "meta", name });
const page = (part: PagePart): Place => ({ kind: "page", part });
/** Durations the data states in parts only: their sum. */
const sum = (...paths: string[]): Place => ({ kind: "sum", paths });

/**
 * Where to look for each concept (a Map: a phrase such as "constructor" must not find Object.prototype), best first.
 */
const TITLE = [entity("headline"), entity("name"), page("headline")];
const DESCRIPTION = [
  entity("description"),
  meta("description"),
  meta("og:description"),
  meta("twitter:description"),
  page("lone paragraph"),
];
const IMAGE = [entity("image"), entity("thumbnailUrl"), meta("og:image"), meta("twitter:image")];
const PUBLISHED = [
  page("date"),
  entity("datePublished"),
  entity("dateCreated"),
  entity("uploadDate"),
  meta("article:published_time"),
];
const AUTHOR = [entity("author"), entity("creator"), meta("author"), meta("article:author"), page("author")];
const INSTRUCTIONS = [entity("recipeInstructions"), entity("step")];
const AVAILABILITY = [page("availability"), entity("offers.availability")];

export const CONCEPTS = new Map<string, Place[]>(
  Object.entries({
    title: TITLE,
    // A headline is what the reader sees above the text; metadata often words it for search engines instead.
    headline: [page("headline"), entity("headline"), entity("name")],
    name: [entity("name"), entity("headline"), page("headline")],
    description: DESCRIPTION,
    summary: DESCRIPTION,
    image: IMAGE,
    photo: IMAGE,
    picture: IMAGE,
    thumbnail: [entity("thumbnailUrl"), ...IMAGE],
    author: AUTHOR,
    byline: AUTHOR,
    creator: AUTHOR,
    date: [...PUBLISHED, entity("startDate")],
    published: PUBLISHED,
    modified: [entity("dateModified"), meta("article:modified_time")],
    updated: [entity("dateModified"), meta("article:modified_time")],
    price: [
      page("price"),
      entity("offers.price"),
      entity("offers.lowPrice"),
      entity("price"),
      meta("product:price:amount"),
      meta("og:price:amount"),
    ],
    currency: [
      entity("offers.priceCurrency"),
      entity("priceCurrency"),
      meta("product:price:currency"),
      meta("og:price:currency"),
      page("currency"),
    ],
    rating: [entity("aggregateRating.ratingValue"), entity("reviewRating.ratingValue"), page("rating")],
    "review count": [
      entity("aggregateRating.reviewCount"),
      entity("aggregateRating.ratingCount"),
      page("review count"),
    ],
    "rating count": [
      entity("aggregateRating.ratingCount"),
      entity("aggregateRating.reviewCount"),
      page("review count"),
    ],
    availability: AVAILABILITY,
    "in stock": AVAILABILITY,
    available: AVAILABILITY,
    brand: [entity("brand"), entity("manufacturer"), page("maker")],
    // A variant's own SKU (in its offer) stands in where the product states none, then the maker's part number, the
    // shop's
    // catalogue id in its meta tags, and last the id the page's address gives it.
    sku: [
      entity("sku"),
      entity("offers.sku"),
      entity("productID"),
      entity("mpn"),
      meta("product:retailer_item_id"),
      page("address id"),
    ],
    ingredients: [entity("recipeIngredient"), entity("ingredients")],
    instructions: INSTRUCTIONS,
    steps: INSTRUCTIONS,
    directions: INSTRUCTIONS,
    servings: [entity("recipeYield")],
    yield: [entity("recipeYield")],
    cuisine: [entity("recipeCuisine")],
    category: [entity("recipeCategory"), entity("category"), entity("articleSection")],
    keywords: [entity("keywords"), meta("keywords")],
    tags: [entity("keywords"), meta("keywords")],
    calories: [entity("nutrition.calories")],
    // schema.org: a recipe's total time includes preparing and cooking; many recipes state only the two parts.
    "total time": [entity("totalTime"), sum("prepTime", "cookTime")],
    publisher: [entity("publisher"), meta("og:site_name")],
    site: [entity("publisher"), meta("og:site_name")],
    url: [entity("url"), meta("og:url")],
    link: [entity("url"), meta("og:url")],
    body: [entity("reviewBody"), entity("articleBody"), entity("text")],
    "mpaa rating": [entity("contentRating")],
    phone: [entity("telephone")],
    telephone: [entity("telephone")],
    website: [entity("url")],
    company: [entity("hiringOrganization"), entity("worksFor")],
    employer: [entity("hiringOrganization"), entity("worksFor")],
    "date posted": [entity("datePosted"), page("date")],
    // A product page's heading names its model ("2010 Hyundai Accent").
    model: [entity("model"), page("headline")],
    location: [entity("jobLocation.address.addressLocality"), entity("address.addressLocality"), entity("location")],
    team: [entity("memberOf"), entity("affiliation")],
    text: [entity("text"), entity("reviewBody"), entity("articleBody")],
  }),
);

/** Concepts pages state as running text, never under a label of their own name: an article's description or body. */
export const RUNNING_TEXT = new Set(["description", "summary", "body", "text"]);

/**
 * Fields a product page labels for shoppers (brand, SKU): where the label
 * and structured data disagree, the label wins, because shops' data often
 * holds an internal id or a seller where the page shows the product's own.
 */
export const SHOWN_FIRST = new Set(["sku", "brand"]);

/** Subjects whose text value is a URL: an image's name or caption is not the image. */
export const URL_VALUED = new Set(["image", "photo", "picture", "thumbnail", "logo", "website", "homepage"]);

/** Types that describe the site or the page around the content rather than the content itself. */
export const SUPPORTING_TYPES = new Set([
  "website",
  "webpage",
  "organization",
  "breadcrumblist",
  "imageobject",
  "person",
  "sitenavigationelement",
  "searchaction",
  "readaction",
  "wpheader",
  "wpfooter",
  "wpsidebar",
  "listitem",
  "corporation",
  "localbusiness",
  "newsmediaorganization",
  "educationalorganization",
  "governmentorganization",
  "brand",
  "collectionpage",
  "itempage",
  "aboutpage",
  "contactpage",
  "searchresultspage",
  "sitenavigation",
  "videoobject",
]);

/**
 * Other words a page's labels use for a field's concept (singular forms;
 * "Directed by" for a director, "Tel" for a phone). A field's own words are
 * always tried first.
 */
export const LABEL_SYNONYMS = new Map<string, string[]>(
  Object.entries({
    author: ["written by", "writer", "byline", "creator"],
    director: ["directed by"],
    genre: ["category", "categories"],
    "mpaa rating": ["rated", "mpaa", "rating"],
    phone: ["telephone", "tel", "phone number", "contact number"],
    website: ["web site", "homepage", "url", "web"],
    manufacturer: ["brand", "maker", "make"],
    brand: ["manufacturer", "make", "brand name", "marca", "marke", "marque", "merk", "бренд", "品牌", "브랜드"],
    // Not "reference": shops use it for the maker's part number as often as for their own.
    sku: [
      "product code",
      "item code",
      "article number",
      "article no",
      "art no",
      "item number",
      "item no",
      "product number",
      "product id",
      "asin",
      "id produto",
      "cod produs",
      "código",
      "codigo",
      "bestellnummer",
      "artikelnummer",
      "art nr",
      "codice articolo",
      "codice prodotto",
      "kod produktu",
      "ürün kodu",
      "код",
      "код товара",
      "артикул",
      "商品編號",
      "商品编号",
      "货号",
      "品番",
      "상품번호",
    ],
    company: ["employer", "company name", "organization", "hiring company"],
    location: ["city", "job location", "place"],
    "date posted": ["posted", "posted on", "date", "post date", "posted date"],
    "published date": ["publication date", "published on", "date published", "published", "release date"],
    address: ["location", "street address"],
    cuisine: ["cuisines", "food", "type of cuisine"],
    type: ["institution type", "school type", "type of institution"],
    isbn: ["isbn 13", "isbn 10"],
    price: ["our price", "sale price", "list price", "msrp", "cost"],
    "fuel economy": ["mpg", "fuel mileage", "epa mileage"],
    engine: ["engine type", "motor"],
    height: ["ht"],
    weight: ["wt"],
    team: ["club", "current team"],
    publisher: ["published by", "imprint"],
    ingredient: ["ingredients"],
    serving: ["serves", "yield", "portions", "servings"],
  }),
);
