import { describe, expect, it } from "vitest";
import { describeName, nameHints, nameTokens } from "./field-names.js";

describe("field names", () => {
  it("splits snake, kebab and camel case and digit runs", () => {
    expect(nameTokens("publishedDate_ISO8601")).toEqual(["published", "date", "iso", "8601"]);
    expect(nameTokens("rating_1_to_5")).toEqual(["rating", "1", "to", "5"]);
    expect(nameTokens("HTMLTitle-text")).toEqual(["html", "title", "text"]);
  });

  it("reads units, scales and formats, leaving the subject", () => {
    expect(nameHints("price_usd")).toEqual({ currency: "USD", subject: ["price"] });
    expect(nameHints("total_time_minutes")).toEqual({ durationUnit: "minutes", subject: ["total", "time"] });
    expect(nameHints("rating_1_to_5")).toEqual({ scale: [1, 5], subject: ["rating"] });
    expect(nameHints("published_date_iso8601")).toMatchObject({ format: "iso8601", subject: ["published", "date"] });
    expect(nameHints("currency_iso4217")).toEqual({ subject: ["currency"] });
    expect(nameHints("image_url")).toEqual({ format: "url", subject: ["image", "url"] });
    expect(nameHints("weight_grams")).toEqual({ measureUnit: "grams", subject: ["weight"] });
    expect(nameHints("temperature_rating_celsius")).toEqual({
      measureUnit: "celsius",
      subject: ["temperature", "rating"],
    });
    expect(nameHints("g_force")).toEqual({ subject: ["g", "force"] });
  });

  it("describes only names that state something", () => {
    expect(describeName("price_usd")).toBe("amount in USD, as a plain number.");
    expect(describeName("title")).toBeUndefined();
  });
});
