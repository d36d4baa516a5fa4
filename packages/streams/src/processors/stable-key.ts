/**
 * A string that identifies a key by value, for the in-memory maps of processors that have no
 * serde at hand (suppress's buffer). Two keys that are equal as data give the same string:
 * object fields are sorted, Buffers are compared by bytes, and types are tagged so 1 and '1'
 * differ. The DSL may pass a serde-based identity instead (the bytes the stores compare).
 */
export function stableKey(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return `s${JSON.stringify(value)}`
    case 'number':
      return `n${Object.is(value, -0) ? '0' : String(value)}`
    case 'bigint':
      return `b${value.toString()}`
    case 'boolean':
      return value ? 'T' : 'F'
    case 'undefined':
      return 'u'
    case 'object':
      if (value === null) return 'z'
      if (Buffer.isBuffer(value)) return `x${value.toString('hex')}`
      if (value instanceof Uint8Array) return `x${Buffer.from(value).toString('hex')}`
      if (Array.isArray(value)) return `[${value.map(stableKey).join(',')}]`
      return `{${Object.keys(value)
        .sort()
        .map((field) => `${JSON.stringify(field)}:${stableKey((value as Record<string, unknown>)[field])}`)
        .join(',')}}`
    default:
      return `?${String(value)}`
  }
}

/** A rough byte size for bounds when no serde is at hand (strings as UTF-8, numbers as 8 bytes). */
export function estimateBytes(value: unknown): number {
  if (value === null || value === undefined) return 0
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8')
  if (typeof value === 'number' || typeof value === 'bigint') return 8
  if (typeof value === 'boolean') return 1
  if (value instanceof Uint8Array) return value.byteLength
  return Buffer.byteLength(stableKey(value), 'utf8')
}
