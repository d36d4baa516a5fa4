/**
 * 1, 2 or 5 times a power of ten at or above v, so a chart's axis labels are round; with
 * `binary`, the same in units of 1024^k (so a byte axis reads 500 KiB/s, not 488.3 KiB/s).
 */
export function niceMax(v: number, binary = false): number {
  if (!(v > 0)) return 1
  let unit = 1
  if (binary) while (v / unit >= 1024) unit *= 1024
  const x = v / unit
  const p = 10 ** Math.floor(Math.log10(x))
  for (const m of [1, 2, 5, 10]) if (m * p >= x) return m * p * unit
  return 10 * p * unit
}
