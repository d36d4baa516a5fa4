/**
 * The group-consumer specs' shared cluster and helpers (test-int/specs/client/group-consumer*.int
 * .test.ts): a REAL in-process cluster from real-cluster.ts (one metadata service with a fast
 * group coordinator, two brokers, 127.0.0.1 port 0, a temp dir), members that record what they
 * process, and a logger that keeps the SDK's warnings for failure messages.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, onTestFinished } from 'vitest'
import type {
  ConsumerMessage,
  Logger,
  GroupConsumer,
  GroupConsumerOptions,
  SluiceClient,
  TopicPartition,
} from '@sluice/client'
import { startRealCluster, until as pollUntil, type RealCluster } from './real-cluster.js'

/** Rebalance listener calls of every member, for failure messages. */
export const events: string[] = []
/** The cluster's client; set by useGroupCluster()'s beforeAll (an ES live binding). */
export let client: SluiceClient

/** real-cluster.ts `until`, polling every 25 ms, with the members' recent events in its error. */
export async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  await pollUntil(what, check, timeoutMs, 25).catch((err: Error) => {
    throw new Error(`${err.message}\n${events.slice(-30).join('\n')}`)
  })
}

/**
 * Starts the cluster before the file's tests (one metadata service with a fast group coordinator,
 * two brokers) and stops it after them; call once at the top of a spec file.
 */
export function useGroupCluster(): void {
  let cluster: RealCluster | undefined
  beforeAll(async () => {
    cluster = await startRealCluster({
      prefix: 'sluice-groups-int-',
      brokers: 2,
      metadata: {
        groupCoordinator: {
          minSessionTimeoutMs: 100,
          initialRebalanceDelayMs: 100,
          sweepIntervalMs: 20,
          offsetsTopicNumPartitions: 3,
        },
      },
      connect: { logger: eventLogger, retry: { retries: 10, initialBackoffMs: 50, maxBackoffMs: 500, factor: 2 } },
    })
    client = cluster.client
    await until('two live brokers', async () => (await client.admin().describeCluster()).brokers.length === 2)
  }, 60_000)

  afterAll(async () => {
    await cluster?.stop()
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
