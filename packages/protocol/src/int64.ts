/**
 * int64 wire values arrive as decimal strings (proto-loader `longs: String`); the code works in
 * bigint. These helpers are the only place that converts.
 */
export function toBigInt(v: string | number | bigint | null | undefined): bigint {
  if (v === null || v === undefined || v === '') return 0n
  return typeof v === 'bigint' ? v : BigInt(v)
}

export function toInt64String(v: bigint | number): string {
  return typeof v === 'bigint' ? v.toString() : String(Math.trunc(v))
}
