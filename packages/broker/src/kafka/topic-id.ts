/**
 * A topic id in Kafka's 16-byte form. Sluice keeps topic ids as strings: the metadata service
 * writes Kafka's own text form (the 16 bytes in URL-safe base64, 22 characters); the canonical
 * hyphenated UUID text is accepted too. Anything else, and a topic without an id, is Kafka's zero
 * UUID, which Kafka clients read as "no id".
 */
const UUID_BYTES = 16
const HYPHENATED = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const BASE64URL = /^[A-Za-z0-9_-]{22}$/

export function kafkaTopicId(id: string | undefined): Buffer {
  if (id !== undefined && HYPHENATED.test(id)) return Buffer.from(id.replaceAll('-', ''), 'hex')
  if (id !== undefined && BASE64URL.test(id)) {
    const bytes = Buffer.from(id, 'base64url')
    if (bytes.length === UUID_BYTES) return bytes
  }
  return Buffer.alloc(UUID_BYTES)
}

export function isZeroTopicId(id: Buffer): boolean {
  return id.every((b) => b === 0)
}
