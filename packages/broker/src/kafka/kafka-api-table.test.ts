import { describe, expect, it } from 'vitest'
import { kafka } from '@sluice/protocol'
import { apiVersionsHandler } from './api-versions-handler.js'
import type { KafkaApiCodec } from './codec-stand-in.js'
import type { KafkaApiHandler } from './kafka-api-handler.js'
import { KafkaApiTable } from './kafka-api-table.js'

/** A codec of one int32, versions 0-5, with header v2 from v4. */
const intCodec = (apiKey: number): KafkaApiCodec<number, number> => ({
  apiKey,
  name: `Int${apiKey}`,
  minVersion: 0,
  maxVersion: 5,
  flexibleFrom: 4,
  readRequest: (r) => r.int32(),
  writeRequest: (w, _v, m) => void w.int32(m),
  readResponse: (r) => r.int32(),
  writeResponse: (w, _v, m) => void w.int32(m),
  requestHeaderVersion: (v) => (v >= 4 ? 2 : 1),
  responseHeaderVersion: (v) => (v >= 4 ? 1 : 0),
})

const handler = (apiKey: number, minVersion: number, maxVersion: number): KafkaApiHandler<number, number> => ({
  codec: intCodec(apiKey),
  minVersion,
  maxVersion,
  handle: async (req) => req,
})

function frame(apiKey: number, apiVersion: number, body?: (w: kafka.KafkaWriter) => void): Buffer {
  const w = new kafka.KafkaWriter()
  kafka.writeRequestHeader(w, apiVersion >= 4 ? 2 : 1, { apiKey, apiVersion, correlationId: 7, clientId: 'c' })
  body?.(w)
  return w.toBuffer()
}

describe('KafkaApiTable', () => {
  it('lists every api by key with its handler range cut to the codec range', () => {
    const table = new KafkaApiTable([handler(3, 1, 9), apiVersionsHandler, handler(1, 0, 2)])
    expect(table.apis).toEqual([
      { apiKey: 1, minVersion: 0, maxVersion: 2 },
      { apiKey: 3, minVersion: 1, maxVersion: 5 },
      { apiKey: 18, minVersion: 0, maxVersion: 3 },
    ])
  })

  it('refuses two handlers for one key and a range outside the schema', () => {
    expect(() => new KafkaApiTable([handler(3, 0, 1), handler(3, 2, 3)])).toThrow(/two Kafka handlers for api key 3/)
    expect(() => new KafkaApiTable([handler(3, 6, 9)])).toThrow(/outside the schema's 0-5/)
  })

  it('decodes the header (v1 or v2 by version) and the body', () => {
    const table = new KafkaApiTable([handler(3, 0, 5)])
    for (const version of [1, 4]) {
      const d = table.decode(frame(3, version, (w) => w.int32(42)))
      expect(d.kind).toBe('request')
      if (d.kind !== 'request') return
      expect(d.body).toBe(42)
      expect(d.header).toMatchObject({ apiKey: 3, apiVersion: version, correlationId: 7, clientId: 'c' })
    }
  })

  it('refuses, without throwing, what a Kafka broker closes the connection for', () => {
    const table = new KafkaApiTable([handler(3, 0, 2), apiVersionsHandler])
    const reason = (f: Buffer): string => {
      const d = table.decode(f)
      return d.kind === 'refused' ? d.reason : `not refused: ${d.kind}`
    }
    expect(reason(Buffer.from([0, 3, 0]))).toMatch(/shorter than a request header/)
    expect(reason(frame(77, 0))).toMatch(/unknown api key 77/)
    expect(reason(frame(3, 3, (w) => w.int32(1)))).toMatch(/Int3 v3 is not supported \(0-2\)/)
    expect(reason(frame(3, -1, (w) => w.int32(1)))).toMatch(/not supported/)
    expect(reason(frame(3, 1, (w) => w.int16(1)))).toMatch(/undecodable Int3 v1 request/)
    expect(reason(frame(3, 1).subarray(0, 10))).toMatch(/undecodable/)
  })

  it('hands an ApiVersions at an unknown version over for the v0 answer, with its correlation id', () => {
    const table = new KafkaApiTable([apiVersionsHandler])
    expect(table.decode(frame(18, 9, (w) => w.int8(1).int8(2)))).toEqual({
      kind: 'unsupported-api-versions',
      correlationId: 7,
      apiVersion: 9,
    })
  })
})
