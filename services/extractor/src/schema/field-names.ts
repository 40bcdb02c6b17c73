/**
 * Field names are the caller's main hint (spec, shape rule 4): `price_usd`,
 * `published_date_iso8601`, `rating_1_to_5`. This module reads them once so
 * the JSON Schema compiler (descriptions for the model) and the builtin
 * engine (matching and unit conversion) agree on what a name says.
 */
import { rememberedByText } from "../remembered.js";

/** Splits snake_case, kebab-case, camelCase and digit runs into lower-case tokens. */
export function nameTokens(name: string): string[] {
  return name
    .replace(/([a-z])([A-Z])/g, "$1 $2")
    .replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2")
    .replace(/([a-zA-Z])(\d)/g, "$1 $2")
    .replace(/(\d)([a-zA-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((token) => token.length > 0);
}

export type DurationUnit = "seconds" | "minutes" | "hours" | "days";

/** A unit of mass, length, volume, temperature or data size a field's name can state (`weight_grams`); normalize.ts converts. */
export type MeasureUnit =
  | "milligrams"
  | "grams"
  | "kilograms"
  | "ounces"
  | "pounds"
  | "millimeters"
  | "centimeters"
  | "meters"
  | "kilometers"
  | "inches"
  | "feet"
  | "milliliters"
  | "liters"
  | "celsius"
  | "fahrenheit"
  | "kilobytes"
  | "megabytes"
  | "gigabytes"
  | "terabytes";

export interface NameHints {
  /** ISO 4217 code named in the field, e.g. "USD" for `price_usd`. */
  currency?: string;
  durationUnit?: DurationUnit;
  /** Unit of a measure named in the field, e.g. "grams" for `weight_grams`. */
  measureUnit?: MeasureUnit;
  /** Scale named in the field, e.g. [1, 5] for `rating_1_to_5`. */
  scale?: [number, number];
  format?: "iso8601" | "url" | "percent";
  /** The tokens that carry meaning once unit and format tokens are removed. */
  subject: string[];
  /**
   * The name asks for the first of a thing the page repeats (`first_post_time`: a thread's first post), not for a
   * thing of its own: repeated values are no doubt about which one is meant.
   */
  first?: boolean;
}

/** The ISO 4217 codes recognised in field names and in numbers written as text. */
const CURRENCY_CODES = [
  "USD",
  "EUR",
  "GBP",
  "JPY",
  "CNY",
  "INR",
  "CAD",
  "AUD",
  "CHF",
  "SEK",
  "NOK",
  "DKK",
  "PLN",
  "BRL",
  "MXN",
];
const CURRENCIES = new Set(CURRENCY_CODES.map((code) => code.toLowerCase()));
// Maps, not object literals: a token such as "constructor" must not find Object.prototype.
const DURATION_UNITS = new Map<string, DurationUnit>([
  ["sec", "seconds"],
  ["secs", "seconds"],
  ["seconds", "seconds"],
  ["min", "minutes"],
  ["mins", "minutes"],
  ["minutes", "minutes"],
  ["hr", "hours"],
  ["hrs", "hours"],
  ["hours", "hours"],
  ["days", "days"],
]);
/** The spellings of measure units in field names; ambiguous ones ("m", "in", "l", "c", "f") are left out. */
const MEASURE_UNITS = new Map<string, MeasureUnit>([
  ["mg", "milligrams"],
  ["milligrams", "milligrams"],
  ["g", "grams"],
  ["gr", "grams"],
  ["grams", "grams"],
  ["kg", "kilograms"],
  ["kilograms", "kilograms"],
  ["kilos", "kilograms"],
  ["oz", "ounces"],
  ["ounces", "ounces"],
  ["lb", "pounds"],
  ["lbs", "pounds"],
  ["pounds", "pounds"],
  ["mm", "millimeters"],
  ["millimeters", "millimeters"],
  ["millimetres", "millimeters"],
  ["cm", "centimeters"],
  ["centimeters", "centimeters"],
  ["centimetres", "centimeters"],
  ["meters", "meters"],
  ["metres", "meters"],
  ["km", "kilometers"],
  ["kilometers", "kilometers"],
  ["kilometres", "kilometers"],
  ["inches", "inches"],
  ["inch", "inches"],
  ["ft", "feet"],
  ["feet", "feet"],
  ["ml", "milliliters"],
  ["milliliters", "milliliters"],
  ["millilitres", "milliliters"],
  ["liters", "liters"],
  ["litres", "liters"],
  ["celsius", "celsius"],
  ["centigrade", "celsius"],
  ["fahrenheit", "fahrenheit"],
  ["kb", "kilobytes"],
  ["kilobytes", "kilobytes"],
  ["mb", "megabytes"],
  ["megabytes", "megabytes"],
  ["gb", "gigabytes"],
  ["gigabytes", "gigabytes"],
  ["tb", "terabytes"],
  ["terabytes", "terabytes"],
]);
const FORMATS = new Map<string, NonNullable<NameHints["format"]>>([
  ["iso", "iso8601"],
  ["url", "url"],
  ["uri", "url"],
  ["link", "url"],
  ["percent", "percent"],
  ["pct", "percent"],
]);

/**
 * What a field's name says of its value; the same frozen object for the same name, remembered: a list's values are
 * shaped per record, each asking its field's hints.
 */
export const nameHints = rememberedByText((name): Readonly<NameHints> => {
  const read = readHints(name);
  Object.freeze(read.subject);
  return Object.freeze(read);
});

function readHints(name: string): NameHints {
  const tokens = nameTokens(name);
  const hints: NameHints = { subject: [] };
  for (let i = 0; i < tokens.length; i += 1) {
    const token = tokens[i]!;
    const scale =
      /^\d+$/.test(token) && tokens[i + 1] === "to" && /^\d+$/.test(tokens[i + 2] ?? "")
        ? [Number(token), Number(tokens[i + 2])]
        : undefined;
    if (scale) {
      hints.scale = [scale[0]!, scale[1]!];
      i += 2;
    } else if (token === "out" && tokens[i + 1] === "of" && /^\d+$/.test(tokens[i + 2] ?? "")) {
      // `rating_out_of_5`: a scale from 0.
      hints.scale = [0, Number(tokens[i + 2])];
      i += 2;
    } else if (token === "iso" && /^\d+$/.test(tokens[i + 1] ?? "") && tokens[i + 1] !== "8601") {
      // Other ISO standards name a code, not a date: `currency_iso4217`, `country_iso3166`.
      i += 1;
    } else if (CURRENCIES.has(token)) hints.currency = token.toUpperCase();
    else if (DURATION_UNITS.has(token)) hints.durationUnit = DURATION_UNITS.get(token);
    // A unit is the name's last word (`weight_g`); elsewhere (`g_force`) it is part of what the field names.
    else if (MEASURE_UNITS.has(token) && i > 0 && i === tokens.length - 1) hints.measureUnit = MEASURE_UNITS.get(token);
    else if (FORMATS.has(token)) {
      hints.format = FORMATS.get(token);
      // "iso8601" arrives as two tokens.
      if (token === "iso" && tokens[i + 1] === "8601") i += 1;
      // A field named `url` or `link` is about a URL, not only formatted as one.
      if (hints.format === "url") hints.subject.push(token);
    } else hints.subject.push(token);
  }
  return hints;
}

/** A short description for the model when the name states a unit, scale or format; undefined otherwise. */
export function describeName(name: string): string | undefined {
  const hints = nameHints(name);
  const parts: string[] = [];
  if (hints.currency) parts.push(`amount in ${hints.currency}, as a plain number`);
  if (hints.durationUnit) parts.push(`duration in ${hints.durationUnit}`);
  if (hints.measureUnit) parts.push(`in ${hints.measureUnit}, as a plain number`);
  if (hints.scale) parts.push(`on a scale from ${hints.scale[0]} to ${hints.scale[1]}`);
  if (hints.format === "iso8601") parts.push("ISO 8601 date or date-time");
  if (hints.format === "url") parts.push("absolute URL");
  if (hints.format === "percent") parts.push("percentage from 0 to 100");
  return parts.length > 0 ? `${parts.join("; ")}.` : undefined;
}
