/**
 * The group-consumer specs' shared cluster and helpers (test-int/specs/client/group-consumer*.int
 * .test.ts): a REAL in-process cluster (one metadata service with its group coordinator, two
 * brokers, 127.0.0.1 port 0, a temp dir), members that record what they process, and a logger
 * that keeps the SDK's warnings for failure messages.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { startBroker, type BrokerHandle } from '@sluice/broker'
import { startMetadataServer, type MetadataServerHandle } from '@sluice/metadata'
import { afterAll, beforeAll, onTestFinished } from 'vitest'
import {
  connect,
  type ConsumerMessage,
  type Logger,
  type GroupConsumer,
  type GroupConsumerOptions,
  type SluiceClient,
  type TopicPartition,
} from '@sluice/client'

let dir: string
/** Rebalance listener calls of every member, for failure messages. */
export const events: string[] = []
let metadata: MetadataServerHandle
let brokers: BrokerHandle[] = []
/** The cluster's client; set by useGroupCluster()'s beforeAll (an ES live binding). */
export let client: SluiceClient

export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (
      await Promise.resolve()
        .then(check)
        .catch(() => false)
    )
      return
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${events.slice(-30).join('\n')}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

/**
 * Starts the cluster before the file's tests (one metadata service with a fast group coordinator,
 * two brokers) and stops it after them; call once at the top of a spec file.
 */
export function useGroupCluster(): void {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sluice-groups-int-'))
    metadata = await startMetadataServer({
      host: '127.0.0.1',
      port: 0,
      dataDir: join(dir, 'meta'),
      defaultReplicationFactor: 1,
      groupCoordinator: {
        minSessionTimeoutMs: 100,
        initialRebalanceDelayMs: 100,
        sweepIntervalMs: 20,
        offsetsTopicNumPartitions: 3,
      },
    })
    for (const id of [1, 2]) {
      brokers.push(
        await startBroker({
          brokerId: id,
          host: '127.0.0.1',
          port: 0,
          dataDir: join(dir, `b${id}`),
          metadataEndpoints: [metadata.endpoint],
        }),
      )
    }
    client = await connect({
      bootstrap: brokers.map((b) => b.endpoint),
      logger: eventLogger,
      retry: { retries: 10, initialBackoffMs: 50, maxBackoffMs: 500, factor: 2 },
    })
    await until('two live brokers', async () => (await client.admin().describeCluster()).brokers.length === 2)
  }, 60_000)

  afterAll(async () => {
    await client?.close()
    for (const b of brokers) await b.stop().catch(() => {})
    brokers = []
    await metadata?.stop().catch(() => {})
    if (dir !== undefined) await rm(dir, { recursive: true, force: true })
  })
}

export async function newTopic(partitions: number): Promise<string> {
  const name = `t-${randomUUID()}`
  await client.admin().createTopics([{ name, numPartitions: partitions, replicationFactor: 1 }])
  await until(`leaders for ${name}`, async () =>
    (await client.admin().describeTopics([name]))[0]!.partitions.every((p) => p.leader >= 0),
  )
  return name
}

/** Produces `n` records with values `${prefix}-${i}` spread over the partitions (keyed). */
export async function produce(topic: string, n: number, prefix = 'v'): Promise<void> {
  const producer = client.producer({ lingerMs: 1 })
  await producer.send({
    topic,
    records: Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: `${prefix}-${i}` })),
  })
  await producer.close()
}

export const FAST: Partial<GroupConsumerOptions> = {
  sessionTimeoutMs: 3000,
  heartbeatIntervalMs: 100,
  maxPollIntervalMs: 10_000,
  maxWaitMs: 100,
  autoOffsetReset: 'earliest',
  autoCommitIntervalMs: 200,
}

export interface Member {
  consumer: GroupConsumer
  seen: ConsumerMessage[]
  stop: () => Promise<void>
}

/** A member that records every message it processes (eachMessage). */
let memberNo = 0

/** Keeps the SDK's warnings and errors in `events` (shown when a wait times out or a check fails). */
const eventLogger: Logger = (() => {
  const make = (bindings: Record<string, unknown>): Logger => {
    const keep =
      (level: string) =>
      (obj: Record<string, unknown>, msg?: string): void => {
        const err = obj.err as Error | undefined
        events.push(
          `${Date.now() % 100000} ${level} ${String(bindings.groupId ?? bindings.component ?? '')} ${msg ?? ''} ${err?.message ?? ''}`,
        )
      }
    return {
      debug: () => {},
      info: () => {},
      warn: keep('WARN'),
      error: keep('ERROR'),
      child: (b) => make({ ...bindings, ...b }),
    }
  }
  return make({})
})()
export function member(groupId: string, topic: string, extra: Partial<GroupConsumerOptions> = {}): Member {
  const no = ++memberNo
  const show = (what: string, tps: TopicPartition[]): void => {
    const g = consumer.groupMetadata()
    events.push(
      `${Date.now() % 100000} m#${no} ${g.memberId.slice(-8)} gen ${g.generationId} ${what} ${tps.map((tp) => tp.partition).join(',')}`,
    )
  }
  const consumer: GroupConsumer = client.consumer({
    ...FAST,
    ...extra,
    groupId,
    rebalanceListener: {
      onPartitionsAssigned: (tps) => {
        show('assigned', tps)
      },
      onPartitionsRevoked: (tps) => {
        show('revoked', tps)
      },
      onPartitionsLost: (tps) => {
        show('LOST', tps)
      },
    },
  })
  consumer.subscribe({ topics: [topic] })
  const seen: ConsumerMessage[] = []
  const handle = consumer.run({
    eachMessage: ({ message }) => {
      seen.push(message)
    },
  })
  let stopped = false
  const stop = async (): Promise<void> => {
    if (stopped) return
    stopped = true
    await handle.stop()
    await consumer.close()
  }
  onTestFinished(stop)
  return { consumer, seen, stop }
}

export const ids = (ms: ConsumerMessage[]): string[] => ms.map((m) => m.value!.toString())
export const keyOf = (tp: TopicPartition): string => `${tp.topic}/${tp.partition}`
