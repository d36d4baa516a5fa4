/**
 * Records of the internal topic __consumer_offsets, byte for byte Kafka's (group-coordinator
 * OffsetCommitKey.json / OffsetCommitValue.json), so Kafka tools could read the topic:
 *
 *   key   (version 1): int16 version=1 | string group | string topic | int32 partition
 *   value (version 3): int16 version=3 | int64 offset | int32 leaderEpoch | string metadata
 *                      | int64 commitTimestamp
 *   string = int16 byte length + UTF-8 bytes. A null value (tombstone) deletes the offset.
 *
 * Writers write key v1 / value v3; readers accept keys v0-v1 and values v0-v3. Key v2 (Kafka's
 * group metadata) and anything unknown decode to undefined and are skipped. The group's
 * partition is Kafka's: abs(String.hashCode(groupId)) % partitions, with Utils.abs (MIN -> 0).
 */

export const OFFSETS_TOPIC = '__consumer_offsets'

export interface OffsetKey {
  readonly group: string
  readonly topic: string
  readonly partition: number
}
export interface OffsetValue {
  readonly offset: bigint
  /** -1 when unknown. */
  readonly leaderEpoch: number
  readonly metadata: string
  /** Milliseconds since the epoch. */
  readonly commitTimestamp: number
}

/** Java's String.hashCode over UTF-16 code units, with int32 wrap-around. */
export function javaStringHash(s: string): number {
  let h = 0
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0
  return h
}

/** The __consumer_offsets partition holding a group's offsets ("my-group" -> 12 of 50). */
export function partitionForGroup(groupId: string, numPartitions: number): number {
  const h = javaStringHash(groupId)
  return (h === -2147483648 ? 0 : Math.abs(h)) % numPartitions
}

function stringBytes(s: string): Buffer {
  const b = Buffer.from(s, 'utf8')
  if (b.length > 32767) throw new RangeError(`string of ${b.length} bytes does not fit an int16 length`)
  return b
}

export function encodeOffsetKey(k: OffsetKey): Buffer {
  const g = stringBytes(k.group)
  const t = stringBytes(k.topic)
  const out = Buffer.alloc(2 + 2 + g.length + 2 + t.length + 4)
  let at = out.writeInt16BE(1, 0)
  at = out.writeInt16BE(g.length, at)
  at += g.copy(out, at)
  at = out.writeInt16BE(t.length, at)
  at += t.copy(out, at)
  out.writeInt32BE(k.partition, at)
  return out
}

export function encodeOffsetValue(v: OffsetValue): Buffer {
  const m = stringBytes(v.metadata)
  const out = Buffer.alloc(2 + 8 + 4 + 2 + m.length + 8)
  let at = out.writeInt16BE(3, 0)
  at = out.writeBigInt64BE(v.offset, at)
  at = out.writeInt32BE(v.leaderEpoch, at)
  at = out.writeInt16BE(m.length, at)
  at += m.copy(out, at)
  out.writeBigInt64BE(BigInt(v.commitTimestamp), at)
  return out
}

class Reader {
  at = 0
  constructor(private readonly b: Buffer) {}
  need(n: number): void {
    if (this.at + n > this.b.length) throw new RangeError('truncated record')
  }
  int16(): number {
    this.need(2)
    const v = this.b.readInt16BE(this.at)
    this.at += 2
    return v
  }
  int32(): number {
    this.need(4)
    const v = this.b.readInt32BE(this.at)
    this.at += 4
    return v
  }
  int64(): bigint {
    this.need(8)
    const v = this.b.readBigInt64BE(this.at)
    this.at += 8
    return v
  }
  string(): string {
    const n = this.int16()
    if (n < 0) throw new RangeError('null string')
    this.need(n)
    const s = this.b.toString('utf8', this.at, this.at + n)
    this.at += n
    return s
  }
}

/** An offset commit key, or undefined for other record kinds and undecodable bytes. */
export function decodeOffsetKey(b: Buffer): OffsetKey | undefined {
  try {
    const r = new Reader(b)
    const version = r.int16()
    if (version !== 0 && version !== 1) return undefined
    return { group: r.string(), topic: r.string(), partition: r.int32() }
  } catch {
    return undefined
  }
}

export function decodeOffsetValue(b: Buffer): OffsetValue | undefined {
  try {
    const r = new Reader(b)
    const version = r.int16()
    if (version < 0 || version > 3) return undefined
    const offset = r.int64()
    const leaderEpoch = version >= 3 ? r.int32() : -1
    const metadata = r.string()
    const commitTimestamp = Number(r.int64())
    if (version === 1) r.int64() // expireTimestamp, unused since KIP-211
    return { offset, leaderEpoch, metadata, commitTimestamp }
  } catch {
    return undefined
  }
}
