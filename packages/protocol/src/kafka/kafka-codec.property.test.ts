import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { KafkaFrameSplitter } from './kafka-frame.js'
import { KafkaReader } from './kafka-reader.js'
import { KafkaWireError } from './kafka-wire-error.js'
import { KafkaWriter } from './kafka-writer.js'
import { readInt32Item, writeInt32Item } from './message-runtime.js'

/** One field of a random struct: how to write it, and how to read it back for comparison. */
type Field =
  | { t: 'int8' | 'int16' | 'int32' | 'uint32' | 'uvarint' | 'varint'; v: number }
  | { t: 'int64' | 'varlong'; v: bigint }
  | { t: 'float64'; v: number }
  | { t: 'boolean'; v: boolean }
  | { t: 'string' | 'compactString'; v: string | null }
  | { t: 'bytes' | 'compactBytes'; v: Uint8Array | null }
  | { t: 'array' | 'compactArray'; v: number[] | null }
  | { t: 'tagged'; v: Array<[number, Uint8Array]> }

const int32 = fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 })
const int64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })
const field: fc.Arbitrary<Field> = fc.oneof(
  fc.record({ t: fc.constant('int8' as const), v: fc.integer({ min: -128, max: 127 }) }),
  fc.record({ t: fc.constant('int16' as const), v: fc.integer({ min: -32768, max: 32767 }) }),
  fc.record({ t: fc.constant('int32' as const), v: int32 }),
  fc.record({ t: fc.constant('uint32' as const), v: fc.integer({ min: 0, max: 2 ** 32 - 1 }) }),
  fc.record({ t: fc.constant('uvarint' as const), v: fc.integer({ min: 0, max: 2 ** 32 - 1 }) }),
  fc.record({ t: fc.constant('varint' as const), v: int32 }),
  fc.record({ t: fc.constant('int64' as const), v: int64 }),
  fc.record({ t: fc.constant('varlong' as const), v: int64 }),
  fc.record({ t: fc.constant('float64' as const), v: fc.double({ noNaN: true }) }),
  fc.record({ t: fc.constant('boolean' as const), v: fc.boolean() }),
  fc.record({
    t: fc.constantFrom('string' as const, 'compactString' as const),
    v: fc.option(fc.string({ unit: 'grapheme' })),
  }),
  fc.record({
    t: fc.constantFrom('bytes' as const, 'compactBytes' as const),
    v: fc.option(fc.uint8Array({ maxLength: 2000 })),
  }),
  fc.record({ t: fc.constantFrom('array' as const, 'compactArray' as const), v: fc.option(fc.array(int32)) }),
  fc.record({
    t: fc.constant('tagged' as const),
    v: fc.uniqueArray(fc.tuple(fc.integer({ min: 0, max: 100000 }), fc.uint8Array({ maxLength: 20 })), {
      selector: ([tag]) => tag,
    }),
  }),
)

function write(w: KafkaWriter, f: Field): void {
  switch (f.t) {
    case 'tagged':
      w.taggedFields(new Map(f.v))
      return
    case 'array':
      w.array(f.v, writeInt32Item, 0)
      return
    case 'compactArray':
      w.compactArray(f.v, writeInt32Item, 0)
      return
    default:
      ;(w[f.t] as (v: unknown) => void).call(w, f.v)
  }
}

/** Reads a field back into the same shape write() took, so the two compare with toEqual. */
function read(r: KafkaReader, f: Field): Field {
  switch (f.t) {
    case 'tagged':
      return { t: f.t, v: [...r.taggedFields(true)].map(([k, v]) => [k, new Uint8Array(v)]) }
    case 'array':
      return { t: f.t, v: r.array(readInt32Item, 0) }
    case 'compactArray':
      return { t: f.t, v: r.compactArray(readInt32Item, 0) }
    case 'bytes':
    case 'compactBytes': {
      const v = r[f.t]()
      return { t: f.t, v: v === null ? null : new Uint8Array(v) }
    }
    default:
      return { t: f.t, v: (r[f.t] as () => unknown).call(r) } as Field
  }
}

const normalise = (f: Field): Field =>
  f.t === 'tagged' ? { t: f.t, v: [...f.v].sort((a, b) => a[0] - b[0]).map(([k, v]) => [k, new Uint8Array(v)]) } : f

describe('Kafka codec properties', () => {
  it('random struct sequences round-trip and use every byte', () => {
    fc.assert(
      fc.property(fc.array(field, { maxLength: 20 }), (fields) => {
        const w = new KafkaWriter(8)
        for (const f of fields) write(w, f)
        const r = new KafkaReader(w.toBuffer())
        expect(fields.map((f) => read(r, f))).toEqual(fields.map(normalise))
        expect(r.remaining).toBe(0)
      }),
      { numRuns: 300 },
    )
  })

  it('any truncation of an encoded struct throws KafkaWireError and nothing else', () => {
    fc.assert(
      fc.property(fc.array(field, { minLength: 1, maxLength: 8 }), fc.nat(), (fields, cut) => {
        const buf = (() => {
          const w = new KafkaWriter()
          for (const f of fields) write(w, f)
          return w.toBuffer()
        })()
        if (buf.length === 0) return
        const r = new KafkaReader(buf.subarray(0, cut % buf.length))
        // A truncation may land on a field boundary; the final fields then must fail.
        expect(() => {
          for (const f of fields) read(r, f)
        }).toThrow(KafkaWireError)
      }),
      { numRuns: 300 },
    )
  })

  it('random bytes never escape as anything but KafkaWireError', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), fc.array(field, { minLength: 1, maxLength: 6 }), (bytes, shape) => {
        const r = new KafkaReader(Buffer.from(bytes))
        try {
          for (const f of shape) read(r, f)
        } catch (e) {
          expect(e).toBeInstanceOf(KafkaWireError)
        }
      }),
      { numRuns: 500 },
    )
  })

  it('the frame splitter gives the same frames for any chunking of the stream', () => {
    fc.assert(
      fc.property(
        fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 6 }),
        fc.array(fc.nat({ max: 50 })),
        (bodies, cuts) => {
          const stream = Buffer.concat(bodies.flatMap((b) => new KafkaWriter().raw(b).toFrame()))
          const s = new KafkaFrameSplitter()
          const out: Buffer[] = []
          let at = 0
          for (const c of cuts) {
            out.push(...s.push(stream.subarray(at, at + c)))
            at = Math.min(stream.length, at + c)
          }
          out.push(...s.push(stream.subarray(at)))
          expect(out.map((f) => [...f])).toEqual(bodies.map((b) => [...b]))
          expect(s.buffered).toBe(0)
        },
      ),
      { numRuns: 200 },
    )
  })
})
