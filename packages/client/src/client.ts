/**
 * connect() and the SluiceClient: owns the connection pool and the metadata cache that every
 * admin, producer and consumer it creates shares, and closes them all together.
 */
import { SluiceError } from '@sluice/protocol'
import { AdminImpl } from './admin/admin.js'
import type { Admin } from './admin/admin-types.js'
import { ConsumerImpl, resolveConsumerOptions } from './consumer/consumer.js'
import type { Consumer, ConsumerOptions } from './consumer/consumer-types.js'
import { GroupConsumerImpl } from './consumer/group/group-consumer.js'
import { resolveGroupConsumerOptions } from './consumer/group/group-options.js'
import type { GroupConsumer, GroupConsumerOptions } from './consumer/group/group-types.js'
import { ConnectionPool } from './network/connection-pool.js'
import { MetadataCache } from './network/metadata-cache.js'
import { resolveConnectOptions, type ConnectOptions, type ResolvedConnectOptions } from './options.js'
import { ProducerImpl, resolveProducerOptions, type Producer, type ProducerOptions } from './producer/producer.js'
import { withRetry } from './retry.js'

export interface SluiceClient {
  /** The admin client (topics, configs, cluster); cheap, shares the client's connections. */
  admin(): Admin
  /** A new producer with its own batches and streams over the client's connections. */
  producer(options?: ProducerOptions): Producer
  /** A group consumer: subscribe() to topics and the group shares their partitions among its members. */
  consumer(options: GroupConsumerOptions): GroupConsumer
  /** A new consumer without a group: assign partitions yourself. */
  consumer(options?: ConsumerOptions): Consumer
  /** Closes every producer (after flushing it), consumer and connection of this client. */
  close(): Promise<void>
  /** Resolves when the client is closed: undefined after close(), an Error if it failed. Never rejects. */
  closed(): Promise<Error | undefined>
}

/**
 * Connects to the cluster: validates the options (TypeError/RangeError listing every problem),
 * then fetches metadata from the bootstrap brokers, retrying per `retry`. Rejects with a
 * SluiceError (e.g. NETWORK_EXCEPTION listing every attempt) when no bootstrap broker answers.
 */
export async function connect(options: ConnectOptions): Promise<SluiceClient> {
  const resolved = resolveConnectOptions(options)
  const pool = new ConnectionPool()
  const cache = new MetadataCache(pool, resolved)
  try {
    await withRetry(
      async () => {
        await cache.refresh()
      },
      { retry: resolved.retry, operation: 'connect' },
    )
  } catch (err) {
    pool.close()
    throw err
  }
  resolved.logger.info(
    { bootstrap: resolved.bootstrap, clusterId: cache.clusterId, brokers: cache.brokers.size },
    'connected',
  )
  return new SluiceClientImpl(pool, cache, resolved)
}

export class SluiceClientImpl implements SluiceClient {
  private readonly producers = new Set<Producer>()
  private readonly consumers = new Set<Consumer | GroupConsumer>()
  private closing: Promise<void> | undefined
  private resolveClosed: (e: Error | undefined) => void = () => {}
  private readonly closedPromise = new Promise<Error | undefined>((resolve) => {
    this.resolveClosed = resolve
  })

  constructor(
    private readonly pool: ConnectionPool,
    readonly cache: MetadataCache,
    readonly options: ResolvedConnectOptions,
  ) {}

  admin(): Admin {
    this.assertOpen()
    return new AdminImpl(this.cache, this.pool, this.options)
  }

  producer(options: ProducerOptions = {}): Producer {
    this.assertOpen()
    const p = new ProducerImpl(
      this.cache,
      this.pool,
      resolveProducerOptions(options, this.options),
      this.options,
      this.options.logger.child({ component: 'producer' }),
    )
    this.producers.add(p)
    return p
  }

  consumer(options: GroupConsumerOptions): GroupConsumer
  consumer(options?: ConsumerOptions): Consumer
  consumer(options: ConsumerOptions | GroupConsumerOptions = {}): Consumer | GroupConsumer {
    this.assertOpen()
    if (options !== null && typeof options === 'object' && 'groupId' in options && options.groupId !== undefined) {
      const resolved = resolveGroupConsumerOptions(options, this.options)
      const g = new GroupConsumerImpl(
        this.cache,
        this.pool,
        resolved.fetcher,
        resolved.group,
        this.options,
        this.options.logger.child({ component: 'group-consumer', groupId: resolved.group.groupId }),
        () =>
          new ProducerImpl(
            this.cache,
            this.pool,
            resolveProducerOptions({ acks: 'all' }, this.options),
            this.options,
            this.options.logger.child({ component: 'dead-letter-producer' }),
          ),
      )
      this.consumers.add(g)
      return g
    }
    const c = new ConsumerImpl(
      this.cache,
      this.pool,
      resolveConsumerOptions(options as ConsumerOptions, this.options),
      this.options,
      this.options.logger.child({ component: 'consumer' }),
    )
    this.consumers.add(c)
    return c
  }

  async close(): Promise<void> {
    this.closing ??= (async () => {
      let failure: Error | undefined
      const results = await Promise.allSettled([
        ...[...this.producers].map(async (p) => {
          await p.close()
        }),
        ...[...this.consumers].map(async (c) => {
          await c.close()
        }),
      ])
      for (const r of results) if (r.status === 'rejected') failure ??= r.reason as Error
      this.pool.close()
      this.options.logger.info({}, 'closed')
      this.resolveClosed(failure)
    })()
    await this.closing
  }

  async closed(): Promise<Error | undefined> {
    return await this.closedPromise
  }

  private assertOpen(): void {
    if (this.closing !== undefined) throw new SluiceError('CLIENT_CLOSED', 'the client is closed')
  }
}
