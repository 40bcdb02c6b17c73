/**
 * A calendar date read from an instant stated in UTC ("2022-11-06T23:00:00Z", "Wed, 04 May 2022 02:41:00 GMT") is
 * Greenwich's date, not necessarily the publisher's: near midnight, the offsets of most publishers (Europe's +1 to +3,
 * the Americas' −3 to −5) put the same instant on the day before or after. Such a date is a guess, whether read from
 * the data or from a visible date the page formatted from that instant.
 */
import type { Element } from "domhandler";
import { isoDate } from "../../schema/normalize.js";

/** How close to midnight, in hours either side, a UTC instant's date stops being the publisher's for sure. */
const NEAR_MIDNIGHT_HOURS = 4;

/** The time of an instant written in UTC: a time of day followed by Z, GMT, UTC or a zero offset. */
const UTC_TIME = /(?:T|\s)(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?\s*(?:Z|GMT|UTC|[+-]00:?00)(?![\w:])/i;

/** A time of day as readers see it ("23:38 Uhr", "9:05 pm"). */
const SHOWN_TIME = /(?<!\d)\d{1,2}:\d{2}(?!\d)/;

/**
 * Whether the text is an instant stated in UTC within NEAR_MIDNIGHT_HOURS of midnight. Midnight itself, to the
 * second, is a bare date stored as an instant: the day is what it means.
 */
export function utcNearMidnight(text: string): boolean {
  const time = UTC_TIME.exec(text);
  if (!time) return false;
  const [hour, minute, second, fraction] = time.slice(1).map((part) => Number(part ?? 0));
  if (hour === 0 && minute === 0 && second === 0 && fraction === 0) return false;
  return hour! < NEAR_MIDNIGHT_HOURS || hour! >= 24 - NEAR_MIDNIGHT_HOURS;
}

/**
 * Whether a date's calendar day is in doubt: it is such an instant, or it is shown, without a time of day, in a
 * <time> element whose machine-readable instant is one and falls on the shown day (the page formatted Greenwich's
 * date for its readers). A shown time says which clock the page shows its readers: their day is the shown one.
 */
export function calendarDayInDoubt(text: string, element: Element | undefined): boolean {
  if (utcNearMidnight(text)) return true;
  if (SHOWN_TIME.test(text)) return false;
  const time = [element, element?.parent].find((e): e is Element => e?.type === "tag" && e.tagName === "time");
  const instant = time?.attribs.datetime;
  return instant !== undefined && utcNearMidnight(instant) && isoDate(instant) === isoDate(text);
}
