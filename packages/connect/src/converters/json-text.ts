/**
 * JSON text with integers that JavaScript numbers cannot hold. Connect's int64 travels as a JSON
 * number (as Kafka's JsonConverter writes it), and `JSON.parse` would round 9007199254740993 to
 * ...992 without a word; so this reader keeps an integer literal outside the safe range as a
 * bigint, and the writer prints a bigint as its digits (no quotes). Everything else is JSON as
 * `JSON.parse`/`JSON.stringify` read and write it; Buffers are written as base64 strings (how
 * Connect's JSON carries bytes).
 */
import { ConnectError } from '../errors.js'

/** What parseJsonText returns: JSON values, with bigint for integers beyond ±2^53-1. */
export type JsonValue = null | boolean | number | bigint | string | JsonValue[] | { [key: string]: JsonValue }

const INTEGER = /^-?(0|[1-9]\d*)$/
/** Sticky: matches at `lastIndex` only. One instance, reset before each use. */
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y

/** Sets an own property, so that a key named "__proto__" is a key and not the prototype. */
export function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true })
}

class Reader {
  pos = 0
  constructor(readonly text: string) {}

  fail(what: string): never {
    throw new ConnectError('CONVERTER', `invalid JSON at offset ${this.pos}: ${what}`)
  }

  skipWhitespace(): void {
    const t = this.text
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos)
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return
      this.pos++
    }
  }

  value(depth: number): JsonValue {
    if (depth > 1000) this.fail('nested too deeply')
    this.skipWhitespace()
    const c = this.text[this.pos]
    switch (c) {
      case '{':
        return this.object(depth)
      case '[':
        return this.array(depth)
      case '"':
        return this.string()
      case 't':
        return this.literal('true', true)
      case 'f':
        return this.literal('false', false)
      case 'n':
        return this.literal('null', null)
      default:
        if (c === '-' || (c !== undefined && c >= '0' && c <= '9')) return this.number()
        return this.fail(c === undefined ? 'unexpected end' : `unexpected "${c}"`)
    }
  }

  literal<T extends JsonValue>(word: string, value: T): T {
    if (!this.text.startsWith(word, this.pos)) this.fail(`expected ${word}`)
    this.pos += word.length
    return value
  }

  number(): number | bigint {
    const m = NUMBER
    m.lastIndex = this.pos
    const found = m.exec(this.text)
    if (found === null || found[0] === '-') this.fail('bad number')
    const literal = found[0]
    this.pos += literal.length
    if (INTEGER.test(literal)) {
      const n = Number(literal)
      if (!Number.isSafeInteger(n)) return BigInt(literal)
      return n
    }
    return Number(literal)
  }

  string(): string {
    // The string's extent, then JSON.parse for its escapes (exact and fast).
    const start = this.pos
    this.pos++
    const t = this.text
    while (this.pos < t.length) {
      const c = t[this.pos]
      if (c === '\\') this.pos += 2
      else if (c === '"') {
        this.pos++
        try {
          return JSON.parse(t.slice(start, this.pos)) as string
        } catch {
          this.pos = start
          return this.fail('bad string')
        }
      } else this.pos++
    }
    return this.fail('unterminated string')
  }

  array(depth: number): JsonValue[] {
    this.pos++
    const out: JsonValue[] = []
    this.skipWhitespace()
    if (this.text[this.pos] === ']') {
      this.pos++
      return out
    }
    for (;;) {
      out.push(this.value(depth + 1))
      this.skipWhitespace()
      const c = this.text[this.pos++]
      if (c === ']') return out
      if (c !== ',') this.fail('expected , or ]')
    }
  }

  object(depth: number): { [key: string]: JsonValue } {
    this.pos++
    const out: { [key: string]: JsonValue } = {}
    this.skipWhitespace()
    if (this.text[this.pos] === '}') {
      this.pos++
      return out
    }
    for (;;) {
      this.skipWhitespace()
      if (this.text[this.pos] !== '"') this.fail('expected a key')
      const key = this.string()
      this.skipWhitespace()
      if (this.text[this.pos++] !== ':') this.fail('expected :')
      setOwn(out, key, this.value(depth + 1))
      this.skipWhitespace()
      const c = this.text[this.pos++]
      if (c === '}') return out
      if (c !== ',') this.fail('expected , or }')
    }
  }
}

/** Sixteen digits in a row: the text may hold an integer beyond 2^53 (15 digits never do). */
const LONG_DIGITS = /\d{16}/

/** Parses JSON text; integers outside the safe range come back as bigint. Throws 'CONVERTER'. */
export function parseJsonText(text: string): JsonValue {
  // Most records hold no long integer: the native parser reads them exactly, several times
  // faster (its "__proto__" keys are own keys too). The reader below gives the error message.
  if (!LONG_DIGITS.test(text)) {
    try {
      return JSON.parse(text) as JsonValue
    } catch {}
  }
  const r = new Reader(text)
  const v = r.value(0)
  r.skipWhitespace()
  if (r.pos !== text.length) r.fail('trailing characters')
  return v
}

/**
 * JSON text of a value: bigint as digits, Buffer/Uint8Array as base64, undefined as null (in a
 * struct a missing optional field is null). Non-finite numbers cannot be JSON: 'CONVERTER'.
 */
export function stringifyJson(value: unknown): string {
  const parts: string[] = []
  write(value, parts, 0)
  return parts.join('')
}

function write(v: unknown, out: string[], depth: number): void {
  if (depth > 1000) throw new ConnectError('CONVERTER', 'value nested too deeply for JSON')
  if (v === null || v === undefined) out.push('null')
  else if (typeof v === 'string') out.push(JSON.stringify(v))
  else if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new ConnectError('CONVERTER', `${v} cannot be written as JSON`)
    out.push(JSON.stringify(v))
  } else if (typeof v === 'bigint') out.push(v.toString())
  else if (typeof v === 'boolean') out.push(v ? 'true' : 'false')
  else if (v instanceof Uint8Array)
    out.push(`"${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64')}"`)
  else if (Array.isArray(v)) {
    out.push('[')
    v.forEach((item, i) => {
      if (i > 0) out.push(',')
      write(item, out, depth + 1)
    })
    out.push(']')
  } else if (v instanceof Map) {
    // A map whose keys are not all strings: Connect's JSON writes it as [[key, value], …].
    out.push('[')
    let i = 0
    for (const [k, item] of v) {
      out.push(i++ > 0 ? ',[' : '[')
      write(k, out, depth + 1)
      out.push(',')
      write(item, out, depth + 1)
      out.push(']')
    }
    out.push(']')
  } else if (typeof v === 'object') {
    out.push('{')
    let first = true
    for (const [k, item] of Object.entries(v)) {
      if (!first) out.push(',')
      first = false
      out.push(JSON.stringify(k), ':')
      write(item, out, depth + 1)
    }
    out.push('}')
  } else throw new ConnectError('CONVERTER', `a ${typeof v} cannot be written as JSON`)
}
