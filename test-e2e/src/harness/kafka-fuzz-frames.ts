/**
 * Seeded generator of hostile Kafka requests for the fuzz test: valid requests of several APIs
 * are built with the generated codecs (Produce carries a real RecordBatch), then each is broken
 * one way: bit flips, random bytes, truncation, size prefixes that are negative, huge or wrong,
 * length fields set to extreme values, random tagged fields, a header of the wrong version,
 * random bytes after a valid header, and for Produce a batch with a wrong CRC, magic, length,
 * count or codec. The same seed gives the same frames in the same order.
 *
 * One rule keeps the log check meaningful: a mutated frame that could still append to a topic
 * other than the sink topic (a Produce whose batches pass the broker's own check), or that turned
 * into a request which changes topics (delete, configs, partitions), is dropped and another is
 * drawn, so nothing the fuzzer sends may legitimately change a guarded log.
 */
import { crc32c, encodeRecordBatch, kafka, validateBatches } from '@sluice/protocol'
import { createRng, type Rng } from './random.js'

export interface FuzzTopics {
  /** Topics whose logs must stay byte-identical; mutated requests name them too. */
  readonly guarded: readonly string[]
  /** The one topic mutated Produce requests that stay valid may append to. */
  readonly sink: string
  readonly group: string
}

/** A frame as sent: its wire bytes (size prefix included) and how it was made, for reports. */
export interface FuzzFrame {
  readonly index: number
  readonly bytes: Buffer
  readonly base: string
  readonly mutation: string
  /** Half-close the connection after writing (the frame promises bytes that never come). */
  readonly endAfter: boolean
}

// biome-ignore lint/suspicious/noExplicitAny: a table of codecs of different APIs.
type AnyCodec = kafka.KafkaApiCodec<any, any, any, any>

interface BaseFrame {
  readonly name: string
  readonly api: AnyCodec
  readonly version: number
  /** The request body after the header. */
  readonly payload: Buffer
  /** For Produce: the batch and a way to rebuild the payload around other record bytes. */
  readonly batch?: Buffer
  readonly withRecords?: (records: Buffer) => Buffer
}

/** API keys of requests that change topics or their configs: never sent, however they came about. */
const TOPIC_CHANGING_KEYS = new Set([20, 21, 33, 37, 44])
const PRODUCE_KEY = 0

function encodePayload(api: AnyCodec, version: number, body: unknown): Buffer {
  const w = new kafka.KafkaWriter()
  api.writeRequest(w, version, body)
  return w.toBuffer()
}

function encodeHeader(api: AnyCodec, version: number, headerVersion: 0 | 1 | 2, correlationId: number): Buffer {
  const w = new kafka.KafkaWriter()
  kafka.writeRequestHeader(w, headerVersion, {
    apiKey: api.apiKey,
    apiVersion: version,
    correlationId,
    clientId: 'sluice-fuzz',
  })
  return w.toBuffer()
}

function sized(body: Buffer, size = body.length): Buffer {
  const prefix = Buffer.allocUnsafe(4)
  prefix.writeInt32BE(size, 0)
  return Buffer.concat([prefix, body])
}

function uvarint(v: number): Buffer {
  const out: number[] = []
  let x = v >>> 0
  while (x >= 0x80) {
    out.push((x & 0x7f) | 0x80)
    x >>>= 7
  }
  out.push(x)
  return Buffer.from(out)
}

/** The valid requests every mutation starts from, several versions of each API. */
export function baseFrames(topics: FuzzTopics): BaseFrame[] {
  const out: BaseFrame[] = []
  const add = (api: AnyCodec, versions: readonly number[], body: (v: number) => unknown): void => {
    for (const version of versions) {
      out.push({ name: `${api.name} v${version}`, api, version, payload: encodePayload(api, version, body(version)) })
    }
  }
  const all = [...topics.guarded, topics.sink]
  add(kafka.ApiVersionsApi, [0, 1, 2, 3], () => ({ clientSoftwareName: 'fuzz', clientSoftwareVersion: '1.0' }))
  add(kafka.MetadataApi, [1, 4, 9, 12], () => ({
    topics: all.map((name) => ({ name })),
    allowAutoTopicCreation: false,
  }))
  add(kafka.FetchApi, [4, 11, 12], () => ({
    maxWaitMs: 0,
    minBytes: 0,
    maxBytes: 1 << 20,
    topics: all.map((topic) => ({
      topic,
      partitions: [0, 1].map((partition) => ({ partition, fetchOffset: 0n, partitionMaxBytes: 65536 })),
    })),
  }))
  add(kafka.ListOffsetsApi, [1, 5, 7], () => ({
    replicaId: -1,
    topics: all.map((name) => ({ name, partitions: [{ partitionIndex: 0, timestamp: -1n }] })),
  }))
  add(kafka.JoinGroupApi, [5, 7], () => ({
    groupId: topics.group,
    sessionTimeoutMs: 10_000,
    rebalanceTimeoutMs: 10_000,
    memberId: '',
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: Buffer.from([0, 1, 0, 0, 0, 1, 0, 1, 0x61, 0xff, 0xff, 0xff, 0xff]) }],
  }))
  add(kafka.HeartbeatApi, [0, 4], () => ({ groupId: topics.group, generationId: 1, memberId: 'no-such-member' }))
  add(kafka.FindCoordinatorApi, [1, 3, 4], (v) =>
    v >= 4 ? { keyType: 0, coordinatorKeys: [topics.group] } : { key: topics.group, keyType: 0 },
  )
  add(kafka.CreateTopicsApi, [2, 5, 7], () => ({
    topics: [{ name: 'fuzz-created', numPartitions: 1, replicationFactor: 1 }],
    timeoutMs: 1000,
    validateOnly: true,
  }))
  add(kafka.DescribeConfigsApi, [1, 4], () => ({
    resources: [{ resourceType: 2, resourceName: topics.guarded[0]!, configurationKeys: null }],
  }))
  add(kafka.OffsetCommitApi, [2, 8], () => ({
    groupId: topics.group,
    generationIdOrMemberEpoch: 1,
    memberId: 'no-such-member',
    topics: [{ name: topics.sink, partitions: [{ partitionIndex: 0, committedOffset: 0n }] }],
  }))
  add(kafka.OffsetFetchApi, [1, 8], (v) =>
    v >= 8
      ? { groups: [{ groupId: topics.group, topics: [{ name: topics.sink, partitionIndexes: [0, 1] }] }] }
      : { groupId: topics.group, topics: [{ name: topics.sink, partitionIndexes: [0, 1] }] },
  )
  add(kafka.SyncGroupApi, [3, 5], () => ({
    groupId: topics.group,
    generationId: 1,
    memberId: 'no-such-member',
    protocolType: 'consumer',
    protocolName: 'range',
    assignments: [{ memberId: 'no-such-member', assignment: Buffer.from([0, 1, 0, 0, 0, 0]) }],
  }))
  add(kafka.DescribeGroupsApi, [0, 5], () => ({ groups: [topics.group] }))
  add(kafka.ListGroupsApi, [0, 4], () => ({ statesFilter: [] }))
  add(kafka.OffsetForLeaderEpochApi, [2, 4], () => ({
    replicaId: -1,
    topics: all.map((topic) => ({ topic, partitions: [{ partition: 0, currentLeaderEpoch: -1, leaderEpoch: 0 }] })),
  }))
  add(kafka.InitProducerIdApi, [0, 4], () => ({ transactionalId: null, transactionTimeoutMs: 1000 }))
  add(kafka.DescribeClusterApi, [0, 1], () => ({ includeClusterAuthorizedOperations: false }))
  for (const version of [3, 7, 9]) {
    for (const topic of all) {
      const records = Array.from({ length: 1 + (out.length % 4) }, (_, i) => ({
        key: Buffer.from(`k${i}`),
        value: Buffer.from(`fuzz value ${i} for ${topic}`),
        timestamp: 1_700_000_000_000n + BigInt(i),
      }))
      const batch = encodeRecordBatch(records)
      const withRecords = (recordBytes: Buffer): Buffer =>
        encodePayload(kafka.ProduceApi, version, {
          acks: topic === topics.sink ? 1 : -1,
          timeoutMs: 1000,
          topicData: [{ name: topic, partitionData: [{ index: 0, records: recordBytes }] }],
        })
      out.push({
        name: `Produce v${version} ${topic === topics.sink ? 'sink' : 'guarded'}`,
        api: kafka.ProduceApi,
        version,
        payload: withRecords(batch),
        batch,
        withRecords,
      })
    }
  }
  return out
}

type Mutation = (rng: Rng, base: BaseFrame, header: Buffer) => { body: Buffer; size?: number; endAfter?: boolean }

const EXTREME_16 = [0xffff, 0x8000, 0x7fff, 0xfffe]
const EXTREME_32 = [0xffffffff, 0x80000000, 0x7fffffff, 0xfffffffe, 0x00ffffff]

function flipBits(rng: Rng, buf: Buffer, count: number): Buffer {
  const out = Buffer.from(buf)
  for (let i = 0; i < count; i++) {
    const at = rng.int(0, out.length - 1)
    out[at] = out[at]! ^ (1 << rng.int(0, 7))
  }
  return out
}

function randomBytes(rng: Rng, n: number): Buffer {
  const out = Buffer.allocUnsafe(n)
  for (let i = 0; i < n; i++) out[i] = rng.int(0, 255)
  return out
}

/** A tagged-field section that lies: wrong counts, duplicate or huge tags, sizes past the end. */
function hostileTaggedFields(rng: Rng): Buffer {
  const parts: Buffer[] = []
  const count = rng.pick([1, 2, 3, 5, 0x7f, 0x3fff, 0x0fffffff])
  parts.push(uvarint(count))
  const fields = Math.min(count, rng.int(0, 4))
  let tag = rng.int(0, 3)
  for (let i = 0; i < fields; i++) {
    tag = rng.pick([tag, tag + 1, tag - 1 < 0 ? 0 : tag - 1, 0x7fffffff])
    const size = rng.pick([0, 1, 4, 200, 0x7fffffff])
    parts.push(uvarint(tag), uvarint(size), randomBytes(rng, Math.min(size, rng.int(0, 8))))
  }
  return Buffer.concat(parts)
}

const MUTATIONS: Record<string, Mutation> = {
  'bit-flip': (rng, b, header) => ({ body: flipBits(rng, Buffer.concat([header, b.payload]), rng.int(1, 4)) }),
  'random-bytes': (rng, b, header) => {
    const body = Buffer.concat([header, b.payload])
    for (let i = rng.int(1, 3); i > 0; i--) body[rng.int(0, body.length - 1)] = rng.int(0, 255)
    return { body }
  },
  truncate: (rng, b, header) => {
    const body = Buffer.concat([header, b.payload])
    return { body: body.subarray(0, rng.int(0, body.length - 1)) }
  },
  'size-negative': (rng, b, header) => ({
    body: Buffer.concat([header, b.payload]),
    size: rng.pick([-1, -2, -0x80000000, -rng.int(3, 1 << 20)]),
  }),
  'size-huge': (rng, b, header) => ({
    body: Buffer.concat([header, b.payload]),
    size: rng.pick([0x7fffffff, 100 * 1024 * 1024 + 1, 0x40000000]),
  }),
  'size-larger': (rng, b, header) => {
    const body = Buffer.concat([header, b.payload])
    return { body, size: body.length + rng.int(1, 64), endAfter: true }
  },
  'size-smaller': (rng, b, header) => {
    const body = Buffer.concat([header, b.payload])
    return { body, size: rng.int(0, body.length - 1) }
  },
  'int-extreme': (rng, b, header) => {
    const body = Buffer.concat([header, b.payload])
    if (rng.int(0, 1) === 0 && body.length >= 2) body.writeUInt16BE(rng.pick(EXTREME_16), rng.int(0, body.length - 2))
    else if (body.length >= 4) body.writeUInt32BE(rng.pick(EXTREME_32), rng.int(0, body.length - 4))
    return { body }
  },
  'varint-huge': (rng, b, header) => {
    const body = Buffer.concat([header, b.payload])
    const junk = rng.pick([
      Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]),
      Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x80]),
      Buffer.from([0xfe, 0xff, 0xff, 0xff, 0x07]),
    ])
    junk.copy(body, rng.int(header.length, Math.max(header.length, body.length - 1)))
    return { body }
  },
  'client-id-length': (rng, b, header) => {
    const h = Buffer.from(header)
    if (h.length >= 10) h.writeInt16BE(rng.pick([-2, -0x8000, 0x7fff, h.readInt16BE(8) + rng.int(1, 40)]), 8)
    return { body: Buffer.concat([h, b.payload]) }
  },
  'tagged-fields': (rng, b, header) => {
    const flexible = b.version >= b.api.flexibleFrom
    if (flexible && rng.int(0, 1) === 0 && b.api.apiKey !== 18) {
      // The header's own tagged-field section is its last byte (an empty section).
      return { body: Buffer.concat([header.subarray(0, header.length - 1), hostileTaggedFields(rng), b.payload]) }
    }
    // The body's top-level section, last in flexible bodies; appended garbage in the others.
    const payload = flexible ? b.payload.subarray(0, b.payload.length - 1) : b.payload
    return { body: Buffer.concat([header, payload, hostileTaggedFields(rng)]) }
  },
  'header-version': (_rng, b, header) => {
    // A flexible request behind a v1 header, or a classic one behind a v2 header.
    const correlationId = header.readInt32BE(4)
    const v = b.api.requestHeaderVersion(b.version) === 2 ? 1 : 2
    return { body: Buffer.concat([encodeHeader(b.api, b.version, v, correlationId), b.payload]) }
  },
  'header-v0': (_rng, b, header) => ({
    body: Buffer.concat([encodeHeader(b.api, b.version, 0, header.readInt32BE(4)), b.payload]),
  }),
  'random-payload': (rng, _b, header) => ({ body: Buffer.concat([header, randomBytes(rng, rng.int(0, 300))]) }),
  'api-version': (rng, b, header) => {
    const h = Buffer.from(header)
    h.writeInt16BE(rng.pick([-1, 0x7fff, b.api.maxVersion + 1, b.api.minVersion, rng.int(0, 20)]), 2)
    return { body: Buffer.concat([h, b.payload]) }
  },
  'api-key': (rng, b, header) => {
    const h = Buffer.from(header)
    h.writeInt16BE(rng.pick([-1, 999, 0x7fff, rng.int(0, 70)]), 0)
    return { body: Buffer.concat([h, b.payload]) }
  },
}

/** Mutations of a Produce request's record batch; the payload is rebuilt around the new bytes. */
const BATCH_MUTATIONS: Record<string, (rng: Rng, batch: Buffer) => Buffer> = {
  'batch-crc': (rng, batch) => {
    const out = Buffer.from(batch)
    const at = 17 + rng.int(0, 3)
    out[at] = out[at]! ^ (1 << rng.int(0, 7))
    return out
  },
  'batch-magic': (rng, batch) => {
    const out = Buffer.from(batch)
    out.writeInt8(rng.pick([0, 1, 3, -1, 127]), 16)
    return out
  },
  'batch-length': (rng, batch) => {
    const out = Buffer.from(batch)
    const real = batch.length - 12
    out.writeInt32BE(rng.pick([-1, 0, 10, 48, real - 1, real + 1, real + 1000, 0x7fffffff, -0x80000000]), 8)
    return out
  },
  'batch-count': (rng, batch) => {
    const out = withFixedCrc(batch, (b) => b.writeInt32BE(rng.pick([-1, 0, 0x7fffffff, -0x80000000]), 57))
    return out
  },
  'batch-codec': (rng, batch) =>
    withFixedCrc(batch, (b) => b.writeInt16BE((b.readInt16BE(21) & ~7) | rng.int(5, 7), 21)),
  'batch-truncated': (rng, batch) => batch.subarray(0, rng.int(0, batch.length - 1)),
  'batch-body-flip': (rng, batch) => {
    const out = Buffer.from(batch)
    const at = rng.int(61, out.length - 1)
    out[at] = out[at]! ^ (1 << rng.int(0, 7))
    return out
  },
  'batch-garbage-after': (rng, batch) => Buffer.concat([batch, randomBytes(rng, rng.int(1, 70))]),
}

/** Applies `change` to a copy of the batch and recomputes its CRC, so only the change is wrong. */
function withFixedCrc(batch: Buffer, change: (b: Buffer) => void): Buffer {
  const out = Buffer.from(batch)
  change(out)
  const crc = crc32c(out.subarray(21))
  out.writeUInt32BE(crc, 17)
  return out
}

/**
 * Could the broker act on this body in a way that changes a guarded log? True for a request that
 * parses as a topic-changing API, and for a Produce whose records pass the broker's batch check
 * for any topic but the sink. Bytes that do not parse change nothing.
 */
export function couldChangeGuardedLog(body: Buffer, sink: string): boolean {
  let header: kafka.KafkaRequestHeader
  const r = new kafka.KafkaReader(body)
  try {
    header = kafka.readRequestHeader(r, (apiKey, apiVersion) => {
      const codec = kafka.KAFKA_API_CODECS.get(apiKey)
      return codec === undefined ? 1 : codec.requestHeaderVersion(apiVersion)
    })
  } catch {
    return false
  }
  if (TOPIC_CHANGING_KEYS.has(header.apiKey)) return true
  if (header.apiKey !== PRODUCE_KEY) return false
  let request: kafka.ProduceRequest
  try {
    request = kafka.ProduceApi.readRequest(r, header.apiVersion)
  } catch {
    return false
  }
  for (const t of request.topicData) {
    if (t.name === sink) continue
    for (const p of t.partitionData) {
      if (p.records === null) continue
      try {
        validateBatches(p.records)
        return true
      } catch {
        /* refused by the batch check: harmless */
      }
    }
  }
  return false
}

/** Draws `count` hostile frames from `seed`, lazily (the generator holds one frame at a time). */
export function* fuzzFrames(seed: number, topics: FuzzTopics, count: number): Generator<FuzzFrame> {
  const rng = createRng(seed)
  const bases = baseFrames(topics)
  const produceBases = bases.filter((b) => b.batch !== undefined)
  const names = Object.keys(MUTATIONS)
  const batchNames = Object.keys(BATCH_MUTATIONS)
  for (let index = 0; index < count; ) {
    // Produce gets a third of the frames: it is the request that could change a log.
    const base = rng.int(0, 2) === 0 ? rng.pick(produceBases) : rng.pick(bases)
    const header = encodeHeader(base.api, base.version, base.api.requestHeaderVersion(base.version), index)
    let mutation: string
    let made: { body: Buffer; size?: number; endAfter?: boolean }
    if (base.batch !== undefined && rng.int(0, 1) === 0) {
      mutation = rng.pick(batchNames)
      made = { body: Buffer.concat([header, base.withRecords!(BATCH_MUTATIONS[mutation]!(rng, base.batch))]) }
    } else {
      mutation = rng.pick(names)
      made = MUTATIONS[mutation]!(rng, base, header)
    }
    if (couldChangeGuardedLog(made.body, topics.sink)) continue
    yield {
      index,
      bytes: sized(made.body, made.size),
      base: base.name,
      mutation,
      endAfter: made.endAfter ?? false,
    }
    index++
  }
}
