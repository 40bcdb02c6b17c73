/**
 * Durations and measures read into the unit a field's name asks for ("PT1H30M" → 90 for `_minutes`, "1.2kg" → 1200
 * for `_grams`, "-5 °C" for `_fahrenheit`). Each reader returns undefined rather than guess.
 */
import type { DurationUnit, MeasureUnit, NameHints } from "./field-names.js";
import { parseNumber } from "./normalize.js";

const ISO_DURATION =
  /^P(?:(\d+(?:\.\d+)?)Y)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/i;
const UNIT_SECONDS: Record<DurationUnit, number> = { seconds: 1, minutes: 60, hours: 3600, days: 86400 };
const WRITTEN_UNITS: [RegExp, number][] = [
  [/^(d|days?|tage?n?|jours?|giorni|giorno|dias?)$/, 86400],
  [/^(h|hrs?|hours?|std|stunden?|heures?|ore|ora|horas?|uur|timer?)$/, 3600],
  [/^(m|mins?|minutes?|minuten?|minuti|minutos?|min\.)$/, 60],
  [/^(s|secs?|seconds?)$/, 1],
];

/**
 * A duration in seconds: ISO 8601 ("PT1H30M", "P0DT0H20M") or written
 * ("1 hr 30 mins", "1h30", "90 minutes"); undefined for anything else. Years
 * and months in ISO form are refused: their length is not fixed.
 */
export function durationSeconds(text: string): number | undefined {
  const trimmed = text.trim();
  const iso = ISO_DURATION.exec(trimmed);
  if (iso) {
    const [years, months, weeks = 0, days = 0, hours = 0, minutes = 0, seconds = 0] = iso
      .slice(1)
      .map((p) => (p === undefined ? undefined : Number(p)));
    if (!iso.slice(1).some((p) => p !== undefined) || years || months) return undefined;
    return (((weeks * 7 + days) * 24 + hours) * 60 + minutes) * 60 + seconds;
  }
  const parts = [...trimmed.toLowerCase().matchAll(/(\d+(?:[.,]\d+)?)\s*([a-zä.]+)?/g)];
  if (parts.length === 0 || trimmed.replace(/(\d+(?:[.,]\d+)?)\s*([a-zä.]+)?|\band\b|[\s,]/gi, "") !== "")
    return undefined;
  let total = 0;
  let previousUnit: number | undefined;
  for (const [, amount, unit] of parts) {
    // "1h30": a bare number after hours counts minutes.
    const factor = unit
      ? WRITTEN_UNITS.find(([pattern]) => pattern.test(unit))?.[1]
      : previousUnit === 3600
        ? 60
        : undefined;
    if (factor === undefined) return undefined;
    total += Number(amount!.replace(",", ".")) * factor;
    previousUnit = factor;
  }
  return total;
}

/** A duration in the unit a field names (PT1H30M → 90 for minutes), or undefined when the text is not a duration. */
export function durationIn(text: string, unit: DurationUnit): number | undefined {
  const seconds = durationSeconds(text);
  return seconds === undefined ? undefined : Math.round((seconds / UNIT_SECONDS[unit]) * 100) / 100;
}

/**
 * Measures: each unit's dimension and its size in the dimension's base unit (gram, millimetre, millilitre, kilobyte); degrees
 * are converted by their own rule. A small table: pages spell units their own ways ("lbs.", "°C", "kilos"), which is
 * what needs writing down; unit libraries convert but do not read those.
 */
const MEASURES: Record<MeasureUnit, { dimension: string; size: number }> = {
  milligrams: { dimension: "mass", size: 0.001 },
  grams: { dimension: "mass", size: 1 },
  kilograms: { dimension: "mass", size: 1000 },
  ounces: { dimension: "mass", size: 28.349523125 },
  pounds: { dimension: "mass", size: 453.59237 },
  millimeters: { dimension: "length", size: 1 },
  centimeters: { dimension: "length", size: 10 },
  meters: { dimension: "length", size: 1000 },
  kilometers: { dimension: "length", size: 1_000_000 },
  inches: { dimension: "length", size: 25.4 },
  feet: { dimension: "length", size: 304.8 },
  milliliters: { dimension: "volume", size: 1 },
  liters: { dimension: "volume", size: 1000 },
  // Degrees do not scale from a zero: toDegrees and fromDegrees convert them.
  celsius: { dimension: "temperature", size: 1 },
  fahrenheit: { dimension: "temperature", size: 1 },
  // Memory and storage as their makers count them: 1024 of one unit make the next.
  kilobytes: { dimension: "data", size: 1 },
  megabytes: { dimension: "data", size: 1024 },
  gigabytes: { dimension: "data", size: 1024 ** 2 },
  terabytes: { dimension: "data", size: 1024 ** 3 },
};
/** Units as pages write them after a number, lower-cased. */
const WRITTEN_MEASURES: [RegExp, MeasureUnit][] = [
  [/^(?:mg|milligrams?)$/, "milligrams"],
  [/^(?:g|gr|grams?|grammes?)$/, "grams"],
  [/^(?:kg|kgs|kilos?|kilograms?|kilogrammes?)$/, "kilograms"],
  [/^(?:oz|ounces?)$/, "ounces"],
  [/^(?:lbs?|pounds?)$/, "pounds"],
  [/^(?:mm|millimet(?:er|re)s?)$/, "millimeters"],
  [/^(?:cm|centimet(?:er|re)s?)$/, "centimeters"],
  [/^(?:m|met(?:er|re)s?)$/, "meters"],
  [/^(?:km|kilomet(?:er|re)s?)$/, "kilometers"],
  [/^(?:in|inch(?:es)?|"|″)$/, "inches"],
  [/^(?:ft|feet|foot|'|′)$/, "feet"],
  [/^(?:ml|millilit(?:er|re)s?)$/, "milliliters"],
  [/^(?:l|lit(?:er|re)s?)$/, "liters"],
  [/^(?:°\s*c|℃|degrees? c(?:elsius)?|celsius)$/, "celsius"],
  [/^(?:°\s*f|℉|degrees? f(?:ahrenheit)?|fahrenheit)$/, "fahrenheit"],
  [/^(?:kb|kib|kilobytes?)$/, "kilobytes"],
  [/^(?:mb|mib|megabytes?)$/, "megabytes"],
  [/^(?:gb|gib|gigabytes?)$/, "gigabytes"],
  [/^(?:tb|tib|terabytes?)$/, "terabytes"],
];
/** A number and the unit after it: "640 g", "1.2kg", "-5 °C", "5'", "14.5 in.". */
const MEASURE = /([+\-−]?\d[\d.,]*)\s*(°\s*[cf]\b|℃|℉|degrees? (?:c(?:elsius)?|f(?:ahrenheit)?)\b|["″'′]|[a-z]+\b)/gi;

/**
 * The first measure in the text of `unit`'s dimension, converted to it ("1.2 kg" → 1200 for grams, "23 °F" → -5 for
 * celsius), rounded to two decimals; undefined when the text states none (a bare number's unit would be a guess).
 */
export function measureIn(text: string, unit: MeasureUnit): number | undefined {
  const wanted = MEASURES[unit];
  for (const [, amount, written] of text.matchAll(MEASURE)) {
    const spelled = written!.toLowerCase().replace(/\s+/g, " ");
    const from = WRITTEN_MEASURES.find(([pattern]) => pattern.test(spelled))?.[1];
    const number = parseNumber(amount!.replace("−", "-").replace(/[.,]$/, ""));
    if (from === undefined || number === undefined || MEASURES[from].dimension !== wanted.dimension) continue;
    const converted =
      wanted.dimension === "temperature"
        ? toDegrees(fromDegrees(number, from), unit)
        : (number * MEASURES[from].size) / wanted.size;
    return Math.round(converted * 100) / 100;
  }
  return undefined;
}

/** The duration or measure a text states in the unit the field's name states; undefined when it names none. */
export function inNamedUnit(text: string, hints: NameHints): number | undefined {
  if (hints.durationUnit) return durationIn(text, hints.durationUnit);
  return hints.measureUnit ? measureIn(text, hints.measureUnit) : undefined;
}

/** Degrees in `unit` as Celsius. */
function fromDegrees(degrees: number, unit: MeasureUnit): number {
  return unit === "fahrenheit" ? ((degrees - 32) * 5) / 9 : degrees;
}

/** Celsius as degrees in `unit`. */
function toDegrees(celsius: number, unit: MeasureUnit): number {
  return unit === "fahrenheit" ? (celsius * 9) / 5 + 32 : celsius;
}
