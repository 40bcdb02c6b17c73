/** Figures as the benchmarks print them. */

/** The q-quantile of sorted values (nearest rank); 0 for none. */
export function percentile(sorted: number[], q: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!;
}

/** A share as a percentage with one decimal. */
export function pct(part: number, whole: number): string {
  return `${((100 * part) / Math.max(1, whole)).toFixed(1)}%`;
}

/** A metric to three decimals in a column six wide. */
export function fmt(value: number): string {
  return value.toFixed(3).padStart(6);
}

/** Milliseconds to one decimal. */
export function round(value: number): number {
  return Math.round(value * 10) / 10;
}
