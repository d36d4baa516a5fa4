/**
 * The cleaner's key → latest offset map (Kafka `SkimpyOffsetMap`): a fixed-size open-addressing
 * table of 24-byte slots (MD5 of the key, 16 bytes, then the offset as int64), allocated once
 * from a byte budget and filled to at most `loadFactor` of its slots. Memory never grows: when a
 * new key would pass the limit, `put` refuses and the cleaner ends its pass there (the rest of the
 * dirty range is cleaned by a later pass). Two keys with the same MD5 share an entry, which could
 * drop a record of one of them; Kafka accepts the same (vanishingly unlikely) risk.
 */
import { createHash } from 'node:crypto'

export const OFFSET_MAP_SLOT_BYTES = 24
const HASH_BYTES = 16

export class OffsetMap {
  readonly slots: number
  readonly maxEntries: number
  private readonly table: Buffer
  private readonly used: Uint8Array
  private count = 0
  /** Largest offset put so far (-1 if none). */
  latestOffset = -1n

  constructor(budgetBytes: number, loadFactor = 0.9) {
    // At least one slot always stays empty, so a probe for an absent key ends.
    this.slots = Math.max(2, Math.floor(budgetBytes / OFFSET_MAP_SLOT_BYTES))
    this.maxEntries = Math.max(1, Math.min(this.slots - 1, Math.floor(this.slots * loadFactor)))
    this.table = Buffer.alloc(this.slots * OFFSET_MAP_SLOT_BYTES)
    this.used = new Uint8Array(this.slots)
  }

  static hashKey(key: Uint8Array): Buffer {
    return createHash('md5').update(key).digest()
  }

  get size(): number {
    return this.count
  }

  /** Records `offset` as the latest for the key hash; false (nothing changed) if the map is full and the key is new. */
  put(hash: Buffer, offset: bigint): boolean {
    const slot = this.find(hash)
    if (!this.used[slot]) {
      if (this.count >= this.maxEntries) return false
      this.used[slot] = 1
      hash.copy(this.table, slot * OFFSET_MAP_SLOT_BYTES, 0, HASH_BYTES)
      this.count++
    }
    this.table.writeBigInt64BE(offset, slot * OFFSET_MAP_SLOT_BYTES + HASH_BYTES)
    if (offset > this.latestOffset) this.latestOffset = offset
    return true
  }

  /** The latest offset recorded for the key hash, or undefined. */
  get(hash: Buffer): bigint | undefined {
    const slot = this.find(hash)
    return this.used[slot] ? this.table.readBigInt64BE(slot * OFFSET_MAP_SLOT_BYTES + HASH_BYTES) : undefined
  }

  clear(): void {
    this.used.fill(0)
    this.count = 0
    this.latestOffset = -1n
  }

  /** The slot holding `hash`, or the empty slot where it would go (linear probing). */
  private find(hash: Buffer): number {
    let slot = hash.readUInt32BE(0) % this.slots
    for (let probes = 0; probes < this.slots; probes++) {
      if (!this.used[slot]) return slot
      if (
        this.table.compare(
          hash,
          0,
          HASH_BYTES,
          slot * OFFSET_MAP_SLOT_BYTES,
          slot * OFFSET_MAP_SLOT_BYTES + HASH_BYTES,
        ) === 0
      )
        return slot
      slot = slot + 1 === this.slots ? 0 : slot + 1
    }
    return slot
  }
}
