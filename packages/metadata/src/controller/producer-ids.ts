/**
 * Producer id allocation, Kafka's way: the controller claims blocks of BLOCK_SIZE ids by a
 * conditional write of /latest_producer_id_block (layout.ts) and hands ids out of the block in
 * memory. Ids are never reused: a restart claims the next block, abandoning the rest of the old
 * one. Callers serialize (the controller queue).
 */
import { SluiceError } from '@sluice/protocol'
import type { MetadataStore, StoreOp } from '../store/metadata-store.js'
import { PATHS, decodeProducerIdBlock, encodeProducerIdBlock } from './layout.js'

export const PRODUCER_ID_BLOCK_SIZE = 1000n
const MAX_PRODUCER_ID = 2n ** 63n - 1n

export class ProducerIdAllocator {
  private next = 0n
  private end = -1n

  constructor(
    private readonly store: MetadataStore,
    private readonly controllerId: number,
    private readonly fence: () => StoreOp,
  ) {}

  async allocate(): Promise<bigint> {
    if (this.next > this.end) await this.claimBlock()
    return this.next++
  }

  /** True when `id` may have been handed out (by this or an earlier controller). */
  mayHaveIssued(id: bigint): boolean {
    return id >= 0n && id < this.next
  }

  private async claimBlock(): Promise<void> {
    const node = await this.store.exists(PATHS.producerIdBlock)
    let start = 0n
    if (node !== undefined) start = decodeProducerIdBlock((await this.store.get(PATHS.producerIdBlock)).data).end + 1n
    const end = start + PRODUCER_ID_BLOCK_SIZE - 1n
    if (end > MAX_PRODUCER_ID) throw new SluiceError('INTERNAL_ERROR', 'producer ids are exhausted')
    const data = encodeProducerIdBlock(this.controllerId, { start, end })
    await this.store.multi([
      this.fence(),
      node === undefined
        ? { type: 'create', path: PATHS.producerIdBlock, data }
        : { type: 'set', path: PATHS.producerIdBlock, data, version: node.version },
    ])
    this.next = start
    this.end = end
  }

  /** The first id of the next block on disk, so ids below it count as issued after a restart. */
  async loadWatermark(): Promise<void> {
    const node = await this.store.exists(PATHS.producerIdBlock)
    if (node === undefined) return
    const block = decodeProducerIdBlock((await this.store.get(PATHS.producerIdBlock)).data)
    // Nothing of the old block is handed out again; the next allocate claims a new block.
    this.next = block.end + 1n
    this.end = block.end
  }
}
