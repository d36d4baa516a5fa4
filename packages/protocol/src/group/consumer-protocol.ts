/**
 * The "consumer" embedded protocol: the opaque bytes members put in JoinGroup protocols
 * (subscription) and the leader puts in SyncGroup assignments. Kafka's binary layout exactly
 * (clients/src/main/resources/common/message/ConsumerProtocol{Subscription,Assignment}.json,
 * non-flexible), big-endian, each prefixed by an int16 version:
 *
 *   Subscription v3: topics [int32 n][string]*, userData bytes, ownedPartitions
 *                    [int32 n]{topic string, partitions [int32 n][int32]*}*, generationId int32,
 *                    rackId nullable string
 *   Assignment   v3: assignedPartitions [int32 n]{topic string, partitions [int32 n][int32]*}*,
 *                    userData bytes
 *   string = int16 length + UTF-8 (nullable: length -1 = null); bytes = int32 length (-1 = null).
 *
 * We write v3. Readers accept v0..v3 (fields of later versions get their defaults) and, as Kafka
 * does, read a higher version as the highest known one, ignoring trailing bytes. Malformed input
 * is an INVALID_REQUEST SluiceError, never a crash.
 */
import { SluiceError } from '../errors.js'

/**
 * A partition as the consumer protocol names it; the same shape as the client's TopicPartition.
 * The codec lives here, not in the client, because the group coordinator in the metadata service
 * reads assignments too (to check which partitions a member may commit), and the metadata service
 * must not import the SDK's internals.
 */
export interface TopicPartition {
  topic: string
  partition: number
}

export const SUBSCRIPTION_VERSION = 3
export const ASSIGNMENT_VERSION = 3

export interface Subscription {
  topics: string[]
  userData: Buffer | null
  ownedPartitions: TopicPartition[]
  /** -1 when unknown (and for versions before 2). */
  generationId: number
  rackId: string | null
}

export interface MemberAssignment {
  partitions: TopicPartition[]
  userData: Buffer | null
}

class Writer {
  private readonly parts: Buffer[] = []

  int16(v: number): this {
    const b = Buffer.alloc(2)
    b.writeInt16BE(v)
    this.parts.push(b)
    return this
  }
  int32(v: number): this {
    const b = Buffer.alloc(4)
    b.writeInt32BE(v)
    this.parts.push(b)
    return this
  }
  string(s: string | null): this {
    if (s === null) return this.int16(-1)
    const bytes = Buffer.from(s, 'utf8')
    if (bytes.length > 0x7fff)
      throw new RangeError(`string of ${bytes.length} bytes is too long for the consumer protocol`)
    this.int16(bytes.length)
    this.parts.push(bytes)
    return this
  }

  bytes(b: Buffer | null): this {
    if (b === null) return this.int32(-1)
    this.int32(b.length)
    this.parts.push(b)
    return this
  }

  done(): Buffer {
    return Buffer.concat(this.parts)
  }
}

class Reader {
  private at = 0
  constructor(
    private readonly buf: Buffer,
    private readonly what: string,
  ) {}

  private need(n: number): void {
    if (this.at + n > this.buf.length)
      throw new SluiceError(
        'INVALID_REQUEST',
        `truncated ${this.what} (needed ${n} byte(s) at ${this.at} of ${this.buf.length})`,
      )
  }

  int16(): number {
    this.need(2)
    const v = this.buf.readInt16BE(this.at)
    this.at += 2
    return v
  }
  int32(): number {
    this.need(4)
    const v = this.buf.readInt32BE(this.at)
    this.at += 4
    return v
  }
  string(): string | null {
    const n = this.int16()
    if (n < 0) return null
    this.need(n)
    const s = this.buf.toString('utf8', this.at, this.at + n)
    this.at += n
    return s
  }

  requiredString(): string {
    const s = this.string()
    if (s === null) throw new SluiceError('INVALID_REQUEST', `null string in ${this.what}`)
    return s
  }

  bytes(): Buffer | null {
    const n = this.int32()
    if (n < 0) return null
    this.need(n)
    const b = Buffer.from(this.buf.subarray(this.at, this.at + n))
    this.at += n
    return b
  }

  count(): number {
    const n = this.int32()
    // Each element takes at least 2 bytes, so a larger count is corrupt (and would allocate).
    if (n < 0 || n * 2 > this.buf.length - this.at)
      throw new SluiceError('INVALID_REQUEST', `bad array length ${n} in ${this.what}`)
    return n
  }

  get remaining(): number {
    return this.buf.length - this.at
  }
}

function writePartitions(w: Writer, tps: readonly TopicPartition[]): void {
  const byTopic = new Map<string, number[]>()
  for (const tp of tps) byTopic.set(tp.topic, [...(byTopic.get(tp.topic) ?? []), tp.partition])
  w.int32(byTopic.size)
  for (const [topic, partitions] of byTopic) {
    w.string(topic).int32(partitions.length)
    for (const p of partitions) w.int32(p)
  }
}

function readPartitions(r: Reader): TopicPartition[] {
  const out: TopicPartition[] = []
  for (let t = r.count(); t > 0; t--) {
    const topic = r.requiredString()
    for (let p = r.count(); p > 0; p--) out.push({ topic, partition: r.int32() })
  }
  return out
}

export function encodeSubscription(
  s: Partial<Subscription> & { topics: string[] },
  version = SUBSCRIPTION_VERSION,
): Buffer {
  const w = new Writer().int16(version)
  w.int32(s.topics.length)
  for (const t of s.topics) w.string(t)
  w.bytes(s.userData ?? null)
  if (version >= 1) writePartitions(w, s.ownedPartitions ?? [])
  if (version >= 2) w.int32(s.generationId ?? -1)
  if (version >= 3) w.string(s.rackId ?? null)
  return w.done()
}

export function decodeSubscription(buf: Buffer): Subscription {
  const r = new Reader(buf, 'consumer subscription')
  const version = r.int16()
  if (version < 0) throw new SluiceError('INVALID_REQUEST', `bad consumer subscription version ${version}`)
  const topics: string[] = []
  for (let n = r.count(); n > 0; n--) topics.push(r.requiredString())
  const userData = r.bytes()
  const ownedPartitions = version >= 1 ? readPartitions(r) : []
  const generationId = version >= 2 ? r.int32() : -1
  const rackId = version >= 3 ? r.string() : null
  return { topics, userData, ownedPartitions, generationId, rackId }
}

export function encodeAssignment(
  a: Partial<MemberAssignment> & { partitions: readonly TopicPartition[] },
  version = ASSIGNMENT_VERSION,
): Buffer {
  const w = new Writer().int16(version)
  writePartitions(w, a.partitions)
  w.bytes(a.userData ?? null)
  return w.done()
}

/** An empty buffer (a member the leader assigned nothing, or no assignment yet) decodes as no partitions. */
export function decodeAssignment(buf: Buffer): MemberAssignment {
  if (buf.length === 0) return { partitions: [], userData: null }
  const r = new Reader(buf, 'consumer assignment')
  const version = r.int16()
  if (version < 0) throw new SluiceError('INVALID_REQUEST', `bad consumer assignment version ${version}`)
  const partitions = readPartitions(r)
  const userData = r.bytes()
  return { partitions, userData }
}
