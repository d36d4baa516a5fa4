/**
 * The coordinator's path to the __consumer_offsets topic: the ordinary produce and fetch path
 * of @sluice/client, so offsets are replicated like any data (docs/design.md §2).
 *
 * - The client connects lazily, with the live brokers' registered endpoints as bootstrap; a
 *   failed connect is forgotten so the next call tries again with the brokers live then.
 * - The topic is created on first append through the controller (in process): compacted,
 *   `offsetsTopicNumPartitions` partitions, replication factor min(configured, live brokers).
 * - Appends use one acks=all producer with the commit timeout as delivery timeout; a commit is
 *   durable (per the topic's replication) when `append` resolves.
 * - `readAll` replays the topic from the log start of every partition up to the high watermark
 *   seen when it started; the coordinator is the only writer, and it holds commits back while
 *   it loads, so nothing is missed.
 */
import { SluiceError } from '@sluice/protocol'
import { connect, type Producer, type SluiceClient } from '@sluice/client'
import type { Logger } from 'pino'
import { OFFSETS_TOPIC, partitionForGroup } from './offset-records.js'

export interface OffsetRecord {
  readonly key: Buffer
  readonly value: Buffer | null
}

export interface OffsetsLog {
  /** Appends the records to the group's partition; resolves once acknowledged (acks=all). */
  append(groupId: string, records: readonly OffsetRecord[]): Promise<void>
  /** False until the topic exists (nothing to load). */
  exists(): boolean
  /** Feeds every record now in the topic, in offset order per partition, to `onRecord`. */
  readAll(onRecord: (key: Buffer, value: Buffer | null) => void, timeoutMs: number): Promise<void>
  close(): Promise<void>
}

/** What the offsets log needs from the cluster (the controller, in the metadata service). */
export interface ClusterAccess {
  liveBrokerEndpoints(): string[]
  /** The topic's partition count, or undefined when it does not exist. */
  offsetsTopicPartitions(): number | undefined
  /** Creates the topic (an existing one is fine); throws a SluiceError otherwise. */
  createOffsetsTopic(numPartitions: number, replicationFactor: number, configs: Record<string, string>): Promise<void>
}

export interface ClientOffsetsLogOptions {
  readonly cluster: ClusterAccess
  readonly numPartitions: number
  readonly replicationFactor: number
  readonly commitTimeoutMs: number
  readonly logger: Logger
}

export class ClientOffsetsLog implements OffsetsLog {
  private client: Promise<SluiceClient> | undefined
  private producer: Producer | undefined
  private creating: Promise<number> | undefined
  private closed = false

  constructor(private readonly o: ClientOffsetsLogOptions) {}

  exists(): boolean {
    return this.o.cluster.offsetsTopicPartitions() !== undefined
  }

  async append(groupId: string, records: readonly OffsetRecord[]): Promise<void> {
    const partitions = await this.ensureTopic()
    const client = await this.connected()
    this.producer ??= client.producer({
      acks: 'all',
      lingerMs: 0,
      deliveryTimeoutMs: this.o.commitTimeoutMs,
      requestTimeoutMs: this.o.commitTimeoutMs,
    })
    const partition = partitionForGroup(groupId, partitions)
    await this.producer.send({
      topic: OFFSETS_TOPIC,
      records: records.map((r) => ({ key: r.key, value: r.value, partition })),
    })
  }

  async readAll(onRecord: (key: Buffer, value: Buffer | null) => void, timeoutMs: number): Promise<void> {
    if (!this.exists()) return
    const client = await this.connected()
    const consumer = client.consumer({ offsetReset: 'latest', maxWaitMs: 100 })
    const abort = new AbortController()
    const timer = setTimeout(() => {
      abort.abort()
      consumer.close().catch(() => {})
    }, timeoutMs)
    try {
      // Assigned with offsetReset 'latest', every partition starts at its end: that is the target.
      const all = await consumer.assign([{ topic: OFFSETS_TOPIC }])
      const ends = new Map<number, bigint>()
      for (const tp of all) ends.set(tp.partition, await consumer.position(tp))
      const todo = all.filter((tp) => ends.get(tp.partition)! > 0n)
      if (todo.length === 0) return
      await consumer.assign(todo)
      for (const tp of todo) consumer.seek({ ...tp, offset: 'beginning' })
      const remaining = new Set<number>()
      for (const tp of todo) if ((await consumer.position(tp)) < ends.get(tp.partition)!) remaining.add(tp.partition)
      if (remaining.size === 0) return
      for await (const m of consumer.messages({ signal: abort.signal })) {
        const end = ends.get(m.partition)!
        if (m.offset < end && m.key !== null) onRecord(m.key, m.value)
        if (m.offset + 1n >= end) remaining.delete(m.partition)
        if (remaining.size === 0) return
      }
      throw new SluiceError('REQUEST_TIMED_OUT', `reading ${OFFSETS_TOPIC} did not finish within ${timeoutMs} ms`)
    } catch (e) {
      if (abort.signal.aborted)
        throw new SluiceError(
          'REQUEST_TIMED_OUT',
          `reading ${OFFSETS_TOPIC} did not finish within ${timeoutMs} ms`,
          {},
          { cause: e },
        )
      throw e
    } finally {
      clearTimeout(timer)
      await consumer.close()
    }
  }

  async close(): Promise<void> {
    this.closed = true
    const client = this.client
    this.client = undefined
    this.producer = undefined
    if (client !== undefined) await (await client.catch(() => undefined))?.close()
  }

  private async ensureTopic(): Promise<number> {
    const have = this.o.cluster.offsetsTopicPartitions()
    if (have !== undefined) return have
    this.creating ??= (async () => {
      try {
        const live = this.o.cluster.liveBrokerEndpoints().length
        if (live === 0) throw new SluiceError('COORDINATOR_NOT_AVAILABLE', `no live broker to host ${OFFSETS_TOPIC}`)
        const rf = Math.min(this.o.replicationFactor, live)
        await this.o.cluster.createOffsetsTopic(this.o.numPartitions, rf, { 'cleanup.policy': 'compact' })
        this.o.logger.info(
          { topic: OFFSETS_TOPIC, partitions: this.o.numPartitions, replicationFactor: rf },
          'created the offsets topic',
        )
        const n = this.o.cluster.offsetsTopicPartitions()
        if (n === undefined)
          throw new SluiceError('COORDINATOR_NOT_AVAILABLE', `${OFFSETS_TOPIC} vanished after its creation`)
        return n
      } finally {
        this.creating = undefined
      }
    })()
    return await this.creating
  }

  private async connected(): Promise<SluiceClient> {
    if (this.closed) throw new SluiceError('COORDINATOR_NOT_AVAILABLE', 'the group coordinator is shutting down')
    if (this.client === undefined) {
      const bootstrap = this.o.cluster.liveBrokerEndpoints()
      if (bootstrap.length === 0)
        throw new SluiceError('COORDINATOR_NOT_AVAILABLE', 'no live broker to reach the offsets topic')
      const attempt = connect({
        bootstrap,
        clientId: 'sluice-group-coordinator',
        logger: this.o.logger,
        requestTimeoutMs: this.o.commitTimeoutMs,
        retry: { retries: 3, initialBackoffMs: 50, maxBackoffMs: 500 },
      })
      this.client = attempt
      attempt.catch(() => {
        if (this.client === attempt) this.client = undefined
      })
    }
    return await this.client
  }
}
