/**
 * A topic id in Kafka's 16-byte form. Sluice keeps topic ids as strings: the metadata service
 * writes Kafka's own text form (the 16 bytes in URL-safe base64, 22 characters); the canonical
 * hyphenated UUID text is accepted too. Anything else, and a topic without an id, is Kafka's zero
 * UUID, which Kafka clients read as "no id".
 *
 * Conversions are remembered: a follower names every topic it fetches by id on every fetch
 * (several hundred a second per broker), and a topic's id never changes. The Buffers returned are
 * shared and must not be written to (they are only ever encoded).
 */
import { readInt32BE } from '@sluice/protocol'

const UUID_BYTES = 16
const HYPHENATED = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const BASE64URL = /^[A-Za-z0-9_-]{22}$/
const ZERO_ID = Buffer.alloc(UUID_BYTES)
/** Cleared when full: a bound on what a long-lived broker keeps for topics since deleted. */
const REMEMBERED_MAX = 10_000
const remembered = new Map<string, Buffer>()

export function kafkaTopicId(id: string | undefined): Buffer {
  if (id === undefined) return ZERO_ID
  let bytes = remembered.get(id)
  if (bytes === undefined) {
    bytes = convert(id)
    if (remembered.size >= REMEMBERED_MAX) remembered.clear()
    remembered.set(id, bytes)
  }
  return bytes
}

function convert(id: string): Buffer {
  if (HYPHENATED.test(id)) return Buffer.from(id.replaceAll('-', ''), 'hex')
  if (BASE64URL.test(id)) {
    const bytes = Buffer.from(id, 'base64url')
    if (bytes.length === UUID_BYTES) return bytes
  }
  return ZERO_ID
}

/**
 * The text form (base64url) of a 16-byte id read from a request, remembered by content: the
 * leader looks up every topic of every follower fetch by id, and encoding through Buffer's
 * toString is a call into C++ each time. The bytes are usually a view of a request frame, so
 * the memo keeps its own copy.
 */
export function topicIdText(id: Buffer): string {
  if (id.length !== UUID_BYTES) return id.toString('base64url')
  const hash = readInt32BE(id, 0) ^ readInt32BE(id, 4) ^ readInt32BE(id, 8) ^ readInt32BE(id, 12)
  let bucket = texts.get(hash)
  if (bucket !== undefined) {
    for (const known of bucket) if (sameId(known.bytes, id)) return known.text
  }
  const text = id.toString('base64url')
  if (textsHeld >= REMEMBERED_MAX) {
    texts.clear()
    textsHeld = 0
    bucket = undefined
  }
  if (bucket === undefined) {
    bucket = []
    texts.set(hash, bucket)
  }
  bucket.push({ bytes: Buffer.from(id), text })
  textsHeld++
  return text
}

/** Ids that share a hash of their bytes (almost always one). */
const texts = new Map<number, Array<{ readonly bytes: Buffer; readonly text: string }>>()
let textsHeld = 0

function sameId(a: Buffer, b: Buffer): boolean {
  for (let i = 0; i < UUID_BYTES; i++) if (a[i] !== b[i]) return false
  return true
}

export function isZeroTopicId(id: Buffer): boolean {
  return id === ZERO_ID || id.equals(ZERO_ID)
}
