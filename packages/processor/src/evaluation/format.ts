/** Numbers in records: six decimals are below any histogram's resolution and keep the JSON short. */
export function roundForRecord(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}

/** Numbers in reasons: three significant digits. */
export function formatNumber(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  return String(Number(x.toPrecision(3)));
}
