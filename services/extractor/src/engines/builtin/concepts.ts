/**
 * What field names mean: where each concept lives in structured data, and
 * the words pages use to label it. Generic vocabulary (schema.org property
 * names, common label words), never tied to a site.
 */
/**
 * Where to look for a concept (a Map: a phrase such as "constructor" must
 * not find Object.prototype), best first: JSON-LD property paths (arrays on
 * the way take their first item), `meta:<name>` for meta tags and
 * `page:headline` for the page's own heading (title, og:title and <h1>
 * reconciled), `page:date` and `page:author` for the byline beside it,
 * `page:price`, `page:availability` and `page:currency` for a product's offer
 * (structured data and the buy box weighed: builtin/offer.ts), `page:address id`
 * for the product id in the page's address (builtin/address-id.ts).
 */
const TITLE = ["headline", "name", "page:headline"];
const DESCRIPTION = ["description", "meta:description", "meta:og:description", "meta:twitter:description"];
const IMAGE = ["image", "thumbnailUrl", "meta:og:image", "meta:twitter:image"];
const PUBLISHED = ["page:date", "datePublished", "dateCreated", "uploadDate", "meta:article:published_time"];
const AUTHOR = ["author", "creator", "meta:author", "meta:article:author", "page:author"];
const INSTRUCTIONS = ["recipeInstructions", "step"];
const AVAILABILITY = ["page:availability", "offers.availability"];

export const CONCEPTS = new Map<string, string[]>(Object.entries({
  title: TITLE,
  // A headline is what the reader sees above the text; metadata often words it for search engines instead.
  headline: ["page:headline", "headline", "name"],
  name: ["name", "headline", "page:headline"],
  description: DESCRIPTION,
  summary: DESCRIPTION,
  image: IMAGE,
  photo: IMAGE,
  picture: IMAGE,
  thumbnail: ["thumbnailUrl", ...IMAGE],
  author: AUTHOR,
  byline: AUTHOR,
  creator: AUTHOR,
  date: [...PUBLISHED, "startDate"],
  published: PUBLISHED,
  modified: ["dateModified", "meta:article:modified_time"],
  updated: ["dateModified", "meta:article:modified_time"],
  price: ["page:price", "offers.price", "offers.lowPrice", "price", "meta:product:price:amount", "meta:og:price:amount"],
  currency: ["offers.priceCurrency", "priceCurrency", "meta:product:price:currency", "meta:og:price:currency", "page:currency"],
  rating: ["aggregateRating.ratingValue", "reviewRating.ratingValue"],
  "review count": ["aggregateRating.reviewCount", "aggregateRating.ratingCount"],
  "rating count": ["aggregateRating.ratingCount", "aggregateRating.reviewCount"],
  availability: AVAILABILITY,
  "in stock": AVAILABILITY,
  available: AVAILABILITY,
  brand: ["brand", "manufacturer"],
  // A variant's own SKU (in its offer) stands in where the product states none, then the maker's part number, the shop's
  // catalogue id in its meta tags, and last the id the page's address gives it.
  sku: ["sku", "offers.sku", "productID", "mpn", "meta:product:retailer_item_id", "page:address id"],
  ingredients: ["recipeIngredient", "ingredients"],
  instructions: INSTRUCTIONS,
  steps: INSTRUCTIONS,
  directions: INSTRUCTIONS,
  servings: ["recipeYield"],
  yield: ["recipeYield"],
  cuisine: ["recipeCuisine"],
  category: ["recipeCategory", "category", "articleSection"],
  keywords: ["keywords", "meta:keywords"],
  tags: ["keywords", "meta:keywords"],
  calories: ["nutrition.calories"],
  publisher: ["publisher", "meta:og:site_name"],
  site: ["publisher", "meta:og:site_name"],
  url: ["url", "meta:og:url"],
  link: ["url", "meta:og:url"],
  body: ["reviewBody", "articleBody", "text"],
  "mpaa rating": ["contentRating"],
  phone: ["telephone"],
  telephone: ["telephone"],
  website: ["url"],
  company: ["hiringOrganization", "worksFor"],
  employer: ["hiringOrganization", "worksFor"],
  "date posted": ["datePosted", "page:date"],
  // A product page's heading names its model ("2010 Hyundai Accent").
  model: ["model", "page:headline"],
  location: ["jobLocation.address.addressLocality", "address.addressLocality", "location"],
  team: ["memberOf", "affiliation"],
  text: ["text", "reviewBody", "articleBody"],
}));

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
  "website", "webpage", "organization", "breadcrumblist", "imageobject", "person", "sitenavigationelement",
  "searchaction", "readaction", "wpheader", "wpfooter", "wpsidebar", "listitem",
  "corporation", "localbusiness", "newsmediaorganization", "educationalorganization", "governmentorganization", "brand",
  "collectionpage", "itempage", "aboutpage", "contactpage", "searchresultspage", "sitenavigation", "videoobject",
]);

/**
 * Other words a page's labels use for a field's concept (singular forms;
 * "Directed by" for a director, "Tel" for a phone). A field's own words are
 * always tried first.
 */
export const LABEL_SYNONYMS = new Map<string, string[]>(Object.entries({
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
    "product code", "item code", "article number", "article no", "art no", "item number", "item no", "product number", "product id",
    "asin", "id produto", "cod produs", "código", "codigo", "bestellnummer", "artikelnummer", "art nr",
    "codice articolo", "codice prodotto", "kod produktu", "ürün kodu", "код", "код товара", "артикул", "商品編號", "商品编号", "货号", "品番", "상품번호",
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
}));
