/**
 * Golden frames of every generated Kafka message codec, in every version its schema defines.
 *
 * For each message and version, two samples (message-samples.ts) are encoded three ways that must
 * agree byte for byte: the generated writer, the reference encoder that walks the schema
 * descriptors at run time (reference-encoder.ts), and the committed golden frame in
 * __golden__/<message>.txt. The generated reader must give the sample back from the golden bytes,
 * and every shorter prefix of a golden frame must fail with KafkaWireError. Goldens are written
 * only with SLUICE_UPDATE_GOLDEN=1 (after a deliberate regeneration, docs/kafka-api.md §3); a
 * missing or different golden fails the test.
 */
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { referenceEncode } from './__fixtures__/reference-encoder.js'
import { sampleMessage, type SampleKind } from './__fixtures__/message-samples.js'
import { KafkaReader } from './kafka-reader.js'
import { KafkaWireError } from './kafka-wire-error.js'
import { KafkaWriter } from './kafka-writer.js'
import type { MessageDescriptor } from './message-descriptor.js'
import { MESSAGE_DESCRIPTORS } from './messages/descriptors.js'
import { KAFKA_API_CODECS } from './messages/index.js'

const here = dirname(fileURLToPath(import.meta.url))
const GOLDEN_DIR = join(here, '__golden__')
const MESSAGES_DIR = join(here, 'messages')
const UPDATE = process.env.SLUICE_UPDATE_GOLDEN === '1'
const KINDS: readonly SampleKind[] = ['full', 'minimal']

function codecOf(d: MessageDescriptor) {
  const codec = KAFKA_API_CODECS.get(d.apiKey)
  if (codec === undefined) throw new Error(`no codec for api key ${d.apiKey}`)
  const request = d.name.endsWith('Request')
  return {
    write: (w: KafkaWriter, v: number, m: unknown) =>
      request ? codec.writeRequest(w, v, m) : codec.writeResponse(w, v, m),
    read: (r: KafkaReader, v: number) => (request ? codec.readRequest(r, v) : codec.readResponse(r, v)),
  }
}

function versions(d: MessageDescriptor): number[] {
  const last = d.valid[1] ?? d.valid[0]
  return Array.from({ length: last - d.valid[0] + 1 }, (_, i) => d.valid[0] + i)
}

const goldenFile = (d: MessageDescriptor) => join(GOLDEN_DIR, `${d.name}.txt`)

function readGoldens(d: MessageDescriptor): Map<string, string> {
  const out = new Map<string, string>()
  if (!existsSync(goldenFile(d))) return out
  for (const line of readFileSync(goldenFile(d), 'utf8').split('\n')) {
    const [key, kind, hex] = line.split(' ')
    if (key !== undefined && kind !== undefined && hex !== undefined) out.set(`${key} ${kind}`, hex)
  }
  return out
}

describe('generated Kafka message codecs', () => {
  it('cover the 25 APIs Sluice speaks, request and response each', () => {
    expect(MESSAGE_DESCRIPTORS).toHaveLength(50)
    expect(KAFKA_API_CODECS.size).toBe(25)
  })

  for (const d of MESSAGE_DESCRIPTORS) {
    describe(d.name, () => {
      const codec = codecOf(d)
      const goldens = readGoldens(d)
      const written: string[] = []

      for (const v of versions(d)) {
        for (const kind of KINDS) {
          it(`v${v} ${kind}: generated writer = reference encoder = golden; reader gives the sample back`, () => {
            const sample = sampleMessage(d, v, kind)
            const w = new KafkaWriter()
            codec.write(w, v, sample)
            const bytes = w.toBuffer()
            expect(bytes.toString('hex')).toBe(referenceEncode(d, v, sample).toString('hex'))
            const key = `v${v} ${kind}`
            written.push(`${key} ${bytes.toString('hex')}`)
            if (!UPDATE) {
              expect(goldens.get(key), `golden ${key} missing from ${goldenFile(d)}`).toBe(bytes.toString('hex'))
            }
            const r = new KafkaReader(bytes)
            expect(codec.read(r, v)).toEqual(sample)
            expect(r.remaining).toBe(0)
          })
        }
        it(`v${v}: every truncation of the full golden is a KafkaWireError`, () => {
          const hex = goldens.get(`v${v} full`)
          const bytes = Buffer.from(hex ?? '', 'hex')
          for (let n = 0; n < bytes.length; n++) {
            let thrown: unknown
            try {
              codec.read(new KafkaReader(bytes.subarray(0, n)), v)
            } catch (err) {
              thrown = err
            }
            expect(thrown, `prefix of ${n} bytes`).toBeInstanceOf(KafkaWireError)
          }
        })
      }

      if (UPDATE) {
        it('writes its goldens', () => {
          writeFileSync(goldenFile(d), `${written.join('\n')}\n`)
        })
      }
    })
  }

  it('are unedited: every generated file ends with the hash of its body', () => {
    const files = readdirSync(MESSAGES_DIR).filter((f) => f.endsWith('.ts'))
    expect(files.length).toBe(102)
    for (const file of files) {
      const text = readFileSync(join(MESSAGES_DIR, file), 'utf8')
      const at = text.lastIndexOf('// body sha256 ')
      expect(at, file).toBeGreaterThan(0)
      const body = text.slice(0, at)
      const hash = text.slice(at + '// body sha256 '.length).trim()
      expect(createHash('sha256').update(body).digest('hex'), `${file} was edited by hand: regenerate it`).toBe(hash)
    }
  })
})
