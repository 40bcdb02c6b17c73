import { describe, expect, it } from "vitest";
import {
  currencyCode,
  datesIn,
  firstNumber,
  isoDate,
  parseBoolean,
  parseNumber,
  phoneNumbers,
  readPrice,
  rescale,
} from "./normalize.js";
import { durationIn, durationSeconds, measureIn } from "./units.js";

describe("parseNumber", () => {
  it.each([
    ["$1,299.00", 1299],
    ["1.299,00 €", 1299],
    ["1 299", 1299],
    ["1\u00a0299,50", 1299.5],
    ["1'299.50", 1299.5],
    ["12,50", 12.5],
    ["12.5", 12.5],
    ["1.299.000", 1299000],
    ["US$ 19.99", 19.99],
    ["19.99 USD", 19.99],
    ["-3", -3],
    [".5", 0.5],
  ])("reads %j as %j", (text, expected) => expect(parseNumber(text)).toBe(expected));

  it("refuses text that is not only a number", () => {
    for (const text of ["--1", "- $-1", "12 apples", "ABC 12", "", "1,29,9", "1.2.3,4,5", "1 2"])
      expect(parseNumber(text)).toBeUndefined();
  });

  it("finds the first number in a sentence", () => {
    expect(firstNumber("Rated 4.8 out of 5 stars")).toBe(4.8);
    expect(firstNumber("no number")).toBeUndefined();
  });
});

describe("readPrice", () => {
  it.each([
    ["CHF 19.50", 19.5, "CHF"],
    ["4,99\u00a0€", 4.99, "EUR"],
    ["NT$ 1,200", 1200, "TWD"],
    ["131 990 ₸", 131990, "KZT"],
    ["30,000원~", 30000, undefined],
    ["€ 20,-", 20, "EUR"],
    ["$12", 12, "USD"],
    ["99元", 99, undefined],
    ["Rs 23,450", 23450, undefined],
  ])("reads %j as %j %s", (text, amount, currency) => expect(readPrice(text)).toEqual({ amount, currency }));

  it("wants one number and a currency, nothing else", () => {
    for (const text of ["12.50", "12 apples", "USDA 5", "ab 5 €/kg", "$9.49$9.49", "R 5", ""])
      expect(readPrice(text)).toBeUndefined();
  });
});

describe("parseBoolean", () => {
  it.each([
    ["yes", true],
    ["In stock", true],
    ["https://schema.org/InStock", true],
    ["true", true],
    ["No", false],
    ["Sold out", false],
    ["http://schema.org/OutOfStock", false],
  ])("reads %j as %j", (text, expected) => expect(parseBoolean(text)).toBe(expected));

  it("refuses anything else", () => {
    for (const text of ["maybe", "constructor", "in stock soon", ""]) expect(parseBoolean(text)).toBeUndefined();
  });
});

describe("durations", () => {
  it.each([
    ["PT1H30M", 90],
    ["P0DT0H20M", 20],
    ["PT45S", 0.75],
    ["P1D", 1440],
    ["1 hr 30 mins", 90],
    ["1h30", 90],
    ["90 minutes", 90],
    ["2 Stunden 15 Minuten", 135],
    ["1 hour and 5 minutes", 65],
  ])("reads %j as %j minutes", (text, minutes) => expect(durationIn(text, "minutes")).toBe(minutes));

  it("refuses open-ended or wordy text", () => {
    for (const text of ["P1M", "P1Y", "PT", "about an hour", "30 apples", ""])
      expect(durationSeconds(text)).toBeUndefined();
  });
});

describe("isoDate", () => {
  it.each([
    ["2019-12-12T08:00:00+01:00", "2019-12-12"],
    ["12.12.2019", "2019-12-12"],
    ["May 25, 2010", "2010-05-25"],
    ["Posted on November 23rd, 2010", "2010-11-23"],
    ["25. Mai 2010", "2010-05-25"],
    ["3 de março de 2021", "2021-03-03"],
    ["19.10.19, 18:56", "2019-10-19"],
    ["Dezember 10, 2019", "2019-12-10"],
    ["Tuesday , 03 May 2022", "2022-05-03"],
    ["20190102", "2019-01-02"],
    ["11-23-2010", "2010-11-23"],
    ["23/11/2010", "2010-11-23"],
  ])("reads %j as %j", (text, expected) => expect(isoDate(text)).toBe(expected));

  it("finds every date a text writes, in order, with where each starts", () => {
    const text = "Published: 22:00 GMT, 26 September 2020 | Updated: 2020-09-28T08:39 (v. 2.1.5)";
    expect(datesIn(text)).toEqual([
      { index: 22, date: "2020-09-26" },
      { index: 51, date: "2020-09-28" },
    ]);
  });

  it("refuses ambiguous and impossible dates", () => {
    for (const text of ["03/04/2010", "2019-02-30", "31.02.2020", "someday", "Mayor 12, 2010"])
      expect(isoDate(text)).toBeUndefined();
  });
});

describe("currencies and scales", () => {
  it.each([
    ["$12", "USD"],
    ["12,50 €", "EUR"],
    ["£3", "GBP"],
    ["US$ 5", "USD"],
    ["CHF 12.–", "CHF"],
    ["12 eur", "EUR"],
  ])("%j is in %s", (text, code) => expect(currencyCode(text)).toBe(code));
  it("finds no currency in plain numbers", () => expect(currencyCode("12.50")).toBeUndefined());

  it("rescales by the top of each scale", () => {
    expect(rescale(8, 10, [1, 5])).toBe(4);
    expect(rescale(4.93, 5, [1, 5])).toBe(4.93);
    expect(rescale(11, 10, [1, 5])).toBeUndefined();
  });
});

describe("measureIn", () => {
  it("converts a measure of the same kind to the unit the name states", () => {
    expect(measureIn("640 g", "grams")).toBe(640);
    expect(measureIn("1.2 kg", "grams")).toBe(1200);
    expect(measureIn("Weight: 1,2 kg (2.6 lbs)", "kilograms")).toBe(1.2);
    expect(measureIn("2.6 lbs.", "kilograms")).toBe(1.18);
    expect(measureIn("-5 °C", "celsius")).toBe(-5);
    expect(measureIn("23°F / -5°C", "celsius")).toBe(-5);
    expect(measureIn("Comfort: 23 degrees F", "celsius")).toBe(-5);
    expect(measureIn("14.5 in.", "centimeters")).toBe(36.83);
    expect(measureIn("750 ml", "liters")).toBe(0.75);
  });

  it("answers nothing where the text states no measure of that kind", () => {
    expect(measureIn("640", "grams")).toBeUndefined();
    expect(measureIn("12 cm", "grams")).toBeUndefined();
    expect(measureIn("Ships in 3 days", "centimeters")).toBeUndefined();
  });
});

describe("phoneNumbers", () => {
  it("keeps the numbers a labelled text holds, as written, and drops what runs on after them", () => {
    expect(phoneNumbers("907/274-2739 | Reserve Online")).toBe("907/274-2739");
    expect(phoneNumbers("907/276-3546; 907/274-4022 | Reserve Online")).toBe("907/276-3546; 907/274-4022");
    expect(phoneNumbers("Tel. +44 (0)20 7946 0958")).toBe("+44 (0)20 7946 0958");
    expect(phoneNumbers("(555) 123-4567 ext")).toBe("(555) 123-4567");
  });

  it("finds none in a text without seven digits in a row of separators", () => {
    expect(phoneNumbers("Call us for reservations")).toBeUndefined();
    expect(phoneNumbers("Open 10-22")).toBeUndefined();
  });
});
