import { describe, expect, it } from 'vitest'
import {
  DEFAULT_MAX_FRAME_BYTES,
  KafkaFrameSplitter,
  readRequestHeader,
  readResponseHeader,
  splitKafkaFrames,
  writeRequestHeader,
  writeResponseHeader,
} from './kafka-frame.js'
import { KafkaReader } from './kafka-reader.js'
import { KafkaWireError } from './kafka-wire-error.js'
import { KafkaWriter } from './kafka-writer.js'

// An ApiVersions v3 request header v2 (ApiVersions is flexible from v3), client id 'kcat',
// correlation id 7, no tagged fields, written out byte by byte.
// biome-ignore format: one line per field keeps the bytes readable beside their meaning.
const apiVersionsV3Header = Buffer.from([
  0x00, 0x12, // api_key 18 (ApiVersions), int16
  0x00, 0x03, // api_version 3, int16
  0x00, 0x00, 0x00, 0x07, // correlation_id 7, int32
  0x00, 0x04, 0x6b, 0x63, 0x61, 0x74, // client_id: classic string, int16 length 4, 'kcat'
  0x00, // tagged fields: count 0
])

function frameOf(body: Buffer): Buffer {
  const prefix = Buffer.alloc(4)
  prefix.writeInt32BE(body.length, 0)
  return Buffer.concat([prefix, body])
}

describe('request and response headers', () => {
  it('decodes the ApiVersions v3 golden header', () => {
    const r = new KafkaReader(apiVersionsV3Header)
    const h = readRequestHeader(r, (apiKey, apiVersion) => (apiKey === 18 && apiVersion >= 3 ? 2 : 1))
    expect(h).toEqual({ apiKey: 18, apiVersion: 3, correlationId: 7, clientId: 'kcat', taggedFields: new Map() })
    expect(r.remaining).toBe(0)
  })
  it('writes the same golden bytes', () => {
    const w = new KafkaWriter()
    writeRequestHeader(w, 2, { apiKey: 18, apiVersion: 3, correlationId: 7, clientId: 'kcat' })
    expect(w.toBuffer().toString('hex')).toBe(apiVersionsV3Header.toString('hex'))
  })
  it('round-trips header v0, v1 (null client id) and v2 with tagged fields', () => {
    const cases = [
      { v: 0 as const, h: { apiKey: 3, apiVersion: 0, correlationId: -1, clientId: null } },
      { v: 1 as const, h: { apiKey: 0, apiVersion: 7, correlationId: 2 ** 31 - 1, clientId: null } },
      { v: 1 as const, h: { apiKey: 1, apiVersion: 11, correlationId: 0, clientId: 'rdkafka-ü' } },
    ]
    for (const { v, h } of cases) {
      const buf = writeRequestHeader(new KafkaWriter(), v, h).toBuffer()
      expect(readRequestHeader(new KafkaReader(buf), v)).toEqual({ ...h, taggedFields: new Map() })
    }
    const tags = new Map([[3, Buffer.from('x')]])
    const buf = writeRequestHeader(new KafkaWriter(), 2, {
      apiKey: 3,
      apiVersion: 12,
      correlationId: 9,
      clientId: '',
      taggedFields: tags,
    }).toBuffer()
    expect(readRequestHeader(new KafkaReader(buf), 2).taggedFields.get(3)?.toString()).toBe('x')
  })
  it('response header v0 is the correlation id; v1 adds an empty tagged-field section', () => {
    expect(writeResponseHeader(new KafkaWriter(), 0, 7).toBuffer().toString('hex')).toBe('00000007')
    const v1 = writeResponseHeader(new KafkaWriter(), 1, 7).toBuffer()
    expect(v1.toString('hex')).toBe('0000000700')
    expect(readResponseHeader(new KafkaReader(v1), 1)).toEqual({ correlationId: 7, taggedFields: new Map() })
  })
  it('a header truncated at every byte throws the typed error', () => {
    for (let n = 0; n < apiVersionsV3Header.length; n++) {
      expect(() => readRequestHeader(new KafkaReader(apiVersionsV3Header.subarray(0, n)), 2)).toThrow(KafkaWireError)
    }
  })
})

describe('KafkaFrameSplitter', () => {
  const bodies = [apiVersionsV3Header, Buffer.alloc(0), Buffer.alloc(3000, 9), Buffer.from('z')]
  const stream = Buffer.concat(bodies.map(frameOf))

  it('splits frames fed all at once, and hands single-chunk frames out as views', () => {
    const { frames, rest } = splitKafkaFrames(stream)
    expect(frames.map((f) => f.toString('hex'))).toEqual(bodies.map((b) => b.toString('hex')))
    expect(frames[2]!.buffer).toBe(stream.buffer)
    expect(rest.length).toBe(0)
  })
  it('splits frames fed one byte at a time', () => {
    const s = new KafkaFrameSplitter()
    const frames: Buffer[] = []
    for (let i = 0; i < stream.length; i++) frames.push(...s.push(stream.subarray(i, i + 1)))
    expect(frames.map((f) => f.toString('hex'))).toEqual(bodies.map((b) => b.toString('hex')))
    expect(s.buffered).toBe(0)
  })
  it('returns the partial tail, size prefix included', () => {
    const partial = Buffer.concat([frameOf(Buffer.from('ab')), frameOf(Buffer.from('cdef')).subarray(0, 6)])
    const { frames, rest } = splitKafkaFrames(partial)
    expect(frames.map((f) => f.toString())).toEqual(['ab'])
    expect(rest.toString('hex')).toBe('000000046364')
    expect(splitKafkaFrames(Buffer.from([0, 0])).rest.toString('hex')).toBe('0000')
  })
  it('rejects an oversized size before buffering any of the body', () => {
    const s = new KafkaFrameSplitter(100)
    const prefix = Buffer.alloc(4)
    prefix.writeInt32BE(101, 0)
    expect(() => s.push(prefix)).toThrow(KafkaWireError)
    expect(new KafkaFrameSplitter().maxFrameBytes).toBe(DEFAULT_MAX_FRAME_BYTES)
    const huge = Buffer.from('7fffffff', 'hex')
    expect(() => new KafkaFrameSplitter().push(huge)).toThrow(/frame size 2147483647/)
    const exact = Buffer.alloc(4)
    exact.writeInt32BE(100, 0)
    expect(new KafkaFrameSplitter(100).push(exact)).toEqual([])
  })
  it('rejects a negative size, with the stream position', () => {
    const s = new KafkaFrameSplitter()
    s.push(frameOf(Buffer.from('ok')))
    try {
      s.push(Buffer.from('ffffffff', 'hex'))
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(KafkaWireError)
      expect((e as KafkaWireError).position).toBe(6)
    }
  })
  it('pushEach hands over the frames before a bad size, then throws', () => {
    const s = new KafkaFrameSplitter()
    const seen: string[] = []
    const bad = Buffer.from('ffffffff', 'hex')
    expect(() =>
      s.pushEach(Buffer.concat([frameOf(Buffer.from('a')), frameOf(Buffer.from('bc')), bad]), (f) =>
        seen.push(f.toString()),
      ),
    ).toThrow(KafkaWireError)
    expect(seen).toEqual(['a', 'bc'])
  })
})
