/**
 * Every handler in coordinatorHandlers answers at its lowest and highest supported version with
 * something its codec encodes and a client of that version decodes: once with the metadata
 * service reachable, once with it unreachable (the failure answers must encode too). A sample
 * request per API is listed here; a handler without one fails the test.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeSubscription, errorId, type kafka } from '@sluice/protocol'
import { coordinatorHandlers, type KafkaApiHandler, type KafkaRequestContext } from '@sluice/broker/internal'
import { createTopicWithLeaders, startRealCluster, type RealCluster } from '../../src/client/real-cluster.js'
import { kafkaCall, kafkaContext } from '../../src/broker/kafka-handler-calls.js'

let cluster: RealCluster
const topic = `t-${randomUUID().slice(0, 8)}`
const group = `g-${randomUUID().slice(0, 8)}`

beforeAll(async () => {
  cluster = await startRealCluster({
    prefix: 'sluice-kafka-versions-',
    brokers: 1,
    metadata: {
      groupCoordinator: { minSessionTimeoutMs: 100, initialRebalanceDelayMs: 0, offsetsTopicReplicationFactor: 1 },
    },
  })
  await createTopicWithLeaders(cluster.client, topic, 1)
}, 60_000)

afterAll(async () => {
  await cluster?.stop()
})

/** A request valid at every version of its API (fields a version lacks are left out by the writer). */
const SAMPLES: Record<string, unknown> = {
  FindCoordinator: { key: group, keyType: 0, coordinatorKeys: [group] },
  JoinGroup: {
    groupId: group,
    sessionTimeoutMs: 5000,
    rebalanceTimeoutMs: 5000,
    memberId: '',
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: encodeSubscription({ topics: [topic] }) }],
  },
  SyncGroup: { groupId: group, generationId: 1, memberId: 'nobody', assignments: [] },
  Heartbeat: { groupId: group, generationId: 1, memberId: 'nobody' },
  LeaveGroup: { groupId: group, memberId: 'nobody', members: [{ memberId: 'nobody' }] },
  OffsetCommit: {
    groupId: group,
    generationIdOrMemberEpoch: -1,
    memberId: '',
    topics: [{ name: topic, partitions: [{ partitionIndex: 0, committedOffset: 0n }] }],
  },
  OffsetFetch: {
    groupId: group,
    topics: [{ name: topic, partitionIndexes: [0] }],
    groups: [{ groupId: group, topics: [{ name: topic, partitionIndexes: [0] }] }],
  },
  DescribeGroups: { groups: [group] },
  ListGroups: {},
  DeleteGroups: { groupsNames: [`missing-${group}`] },
  CreateTopics: {
    timeoutMs: 5000,
    validateOnly: true,
    topics: [{ name: `new-${topic}`, numPartitions: 1, replicationFactor: 1 }],
  },
  DeleteTopics: { timeoutMs: 5000, topicNames: ['no-such-topic'], topics: [{ name: 'no-such-topic' }] },
  CreatePartitions: { timeoutMs: 5000, validateOnly: true, topics: [{ name: topic, count: 2, assignments: null }] },
  DescribeConfigs: {
    resources: [
      { resourceType: 2, resourceName: topic, configurationKeys: null },
      { resourceType: 4, resourceName: '1', configurationKeys: null },
    ],
  },
  AlterConfigs: { validateOnly: true, resources: [{ resourceType: 2, resourceName: topic, configs: [] }] },
  IncrementalAlterConfigs: {
    validateOnly: true,
    resources: [
      { resourceType: 2, resourceName: topic, configs: [{ name: 'retention.ms', configOperation: 0, value: '1000' }] },
    ],
  },
  InitProducerId: { transactionalId: null, transactionTimeoutMs: 1000 },
  DescribeCluster: { includeClusterAuthorizedOperations: false },
}

type AnyHandler = KafkaApiHandler<unknown, unknown>

/** Every error code in a decoded answer, wherever it sits. */
function errorCodes(v: unknown, out: number[] = []): number[] {
  if (Array.isArray(v)) for (const x of v) errorCodes(x, out)
  else if (v !== null && typeof v === 'object' && !Buffer.isBuffer(v))
    for (const [k, x] of Object.entries(v)) {
      if (k === 'errorCode' && typeof x === 'number') out.push(x)
      else errorCodes(x, out)
    }
  return out
}

function call(h: AnyHandler, version: number, c: KafkaRequestContext): Promise<unknown> {
  const sample = SAMPLES[h.codec.name]
  if (sample === undefined) throw new Error(`no sample request for ${h.codec.name}`)
  return kafkaCall(h, h.codec as kafka.KafkaApiCodec<unknown, unknown, unknown, unknown>, version, sample, c)
}

describe('every coordinator handler at its min and max version', () => {
  it('lists each API once, within what its codec defines', () => {
    const names = coordinatorHandlers.map((h) => h.codec.name)
    expect(new Set(names).size).toBe(names.length)
    expect([...names].sort()).toEqual(Object.keys(SAMPLES).sort())
    for (const h of coordinatorHandlers) {
      expect(h.minVersion).toBeGreaterThanOrEqual(h.codec.minVersion)
      expect(h.maxVersion).toBeLessThanOrEqual(h.codec.maxVersion)
    }
  })

  for (const h of coordinatorHandlers as AnyHandler[]) {
    for (const version of [...new Set([h.minVersion, h.maxVersion])]) {
      it(`${h.codec.name} v${version} encodes its answer, reachable and not`, async () => {
        const live = kafkaContext(cluster.brokers[0]!)
        const answer = await call(h, version, live)
        expect(errorCodes(answer)).not.toContain(errorId('UNKNOWN_SERVER_ERROR'))
        const cut = { ...live, metadataEndpoints: () => ['127.0.0.1:1'] }
        const failed = await call(h, version, cut)
        expect(errorCodes(failed)).not.toContain(errorId('UNKNOWN_SERVER_ERROR'))
      }, 30_000)
    }
  }
})
