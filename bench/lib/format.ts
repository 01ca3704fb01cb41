export const int = (n: number): string => Math.round(n).toLocaleString('en-US');
export const fixed = (n: number, digits = 1): string => n.toFixed(digits);
export const pct = (n: number): string => `${(n * 100).toFixed(0)}%`;

/** Nearest-rank percentile of an ascending-sorted array. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export function line(label: string, value: string): string {
  return `  ${label.padEnd(34)} ${value}`;
}
