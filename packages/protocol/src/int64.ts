/**
 * int64 wire values arrive as decimal strings (proto-loader `longs: String`); the code works in
 * bigint. These helpers are the only place that converts.
 */
export function toBigInt(v: string | number | bigint | null | undefined): bigint {
  if (v === null || v === undefined || v === '') return 0n
  return typeof v === 'bigint' ? v : BigInt(v)
}

/** A decimal int64 text as a bigint; undefined when it is not one (no exception, unlike BigInt()). */
export function int64FromText(text: string): bigint | undefined {
  return /^-?\d{1,19}$/.test(text) ? BigInt(text) : undefined
}

export function toInt64String(v: bigint | number): string {
  return typeof v === 'bigint' ? v.toString() : String(Math.trunc(v))
}

/** Anything proto-loader may hold in an int64 field: a decimal string, a number or a Long. */
export type WireInt64 = string | number | { toString(): string }

/** An int64 field of a wire message as a bigint; `absent` when the field is not set. */
export function int64FromWire(v: WireInt64 | null | undefined, absent = -1n): bigint {
  if (v === undefined || v === null) return absent
  if (typeof v === 'number') return BigInt(Math.trunc(v))
  return toBigInt(typeof v === 'object' ? v.toString() : v)
}
