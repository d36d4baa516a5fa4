/**
 * The broker's Kafka admin handlers (CreateTopics, DeleteTopics, CreatePartitions,
 * DescribeConfigs, AlterConfigs, IncrementalAlterConfigs, InitProducerId, DescribeCluster)
 * against a real metadata service and two brokers, through the codecs at each API's versions;
 * what they change is checked through the SDK's admin.
 */
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { errorId, kafka } from '@sluice/protocol'
import {
  alterConfigsHandler,
  createPartitionsHandler,
  createTopicsHandler,
  deleteTopicsHandler,
  describeClusterHandler,
  describeConfigsHandler,
  incrementalAlterConfigsHandler,
  initProducerIdHandler,
  type KafkaRequestContext,
} from '@sluice/broker/internal'
import { createTopicWithLeaders, startRealCluster, until, type RealCluster } from '../../src/client/real-cluster.js'
import { KAFKA_HOST, KAFKA_PORT, kafkaCall, kafkaContext } from '../../src/broker/kafka-handler-calls.js'

let cluster: RealCluster

beforeAll(async () => {
  cluster = await startRealCluster({ prefix: 'sluice-kafka-admin-', brokers: 2 })
  await until('two live brokers', async () => (await cluster.client.admin().describeCluster()).brokers.length === 2)
}, 60_000)

afterAll(async () => {
  await cluster?.stop()
})

const NONE = 0
const code = (name: Parameters<typeof errorId>[0]): number => errorId(name)
const newTopic = (): string => `t-${randomUUID().slice(0, 8)}`
const ctx = (): KafkaRequestContext => kafkaContext(cluster.brokers[0]!)
const TOPIC = 2
const BROKER = 4

async function overridesOf(topic: string): Promise<Record<string, string>> {
  const [d] = await cluster.client.admin().describeTopics([topic])
  return Object.fromEntries(d!.configs.filter((c) => c.source === 'topic').map((c) => [c.name, c.value]))
}

describe('CreateTopics, DeleteTopics, CreatePartitions', () => {
  it('creates with defaults, explicit counts, assignments and configs, and answers errors per topic', async () => {
    const [plain, counted, assigned, existing] = [newTopic(), newTopic(), newTopic(), newTopic()]
    await createTopicWithLeaders(cluster.client, existing, 1)
    const res = await kafkaCall(
      createTopicsHandler,
      kafka.CreateTopicsApi,
      7,
      {
        timeoutMs: 10_000,
        topics: [
          { name: plain, numPartitions: -1, replicationFactor: -1 },
          {
            name: counted,
            numPartitions: 3,
            replicationFactor: 2,
            configs: [{ name: 'retention.ms', value: '60000' }],
          },
          {
            name: assigned,
            numPartitions: -1,
            replicationFactor: -1,
            assignments: [{ partitionIndex: 0, brokerIds: [2, 1] }],
          },
          { name: existing, numPartitions: 1, replicationFactor: 1 },
          { name: 'bad-partitions', numPartitions: 0, replicationFactor: 1 },
          {
            name: 'bad-config',
            numPartitions: 1,
            replicationFactor: 1,
            configs: [{ name: 'retention.ms', value: 'soon' }],
          },
        ],
      },
      ctx(),
    )
    const byName = new Map(res.topics.map((t) => [t.name, t]))
    expect(byName.get(plain)).toMatchObject({ errorCode: NONE, numPartitions: 1, replicationFactor: 1 })
    expect(byName.get(counted)).toMatchObject({ errorCode: NONE, numPartitions: 3, replicationFactor: 2 })
    expect(byName.get(counted)!.topicId.equals(Buffer.alloc(16))).toBe(false)
    expect(byName.get(counted)!.configs).toContainEqual({
      name: 'retention.ms',
      value: '60000',
      readOnly: false,
      configSource: 1,
      isSensitive: false,
    })
    expect(byName.get(counted)!.configs).toContainEqual(
      expect.objectContaining({ name: 'cleanup.policy', configSource: 5 }),
    )
    expect(byName.get(assigned)).toMatchObject({ errorCode: NONE, numPartitions: 1, replicationFactor: 2 })
    expect(byName.get(existing)!.errorCode).toBe(code('TOPIC_ALREADY_EXISTS'))
    expect(byName.get('bad-partitions')!.errorCode).toBe(code('INVALID_PARTITIONS'))
    expect(byName.get('bad-config')!.errorCode).toBe(code('INVALID_CONFIG'))
    expect(byName.get('bad-config')!.errorMessage).toMatch(/retention\.ms/)
    const described = await cluster.client.admin().describeTopics([counted, assigned])
    expect(described.map((d) => d.partitions.length)).toEqual([3, 1])
    expect(described[1]!.partitions[0]!.replicas).toEqual([2, 1])
    expect(await overridesOf(counted)).toEqual({ 'retention.ms': '60000' })
    // The answering broker already knows the created topics (its next Metadata answer lists them).
    expect([plain, counted, assigned].every((t) => ctx().broker.cache.hasTopic(t))).toBe(true)
    expect(await cluster.client.admin().listTopics()).not.toContain('bad-partitions')
  })

  it('validateOnly creates nothing; v2 answers without the v5 fields', async () => {
    const name = newTopic()
    const res = await kafkaCall(
      createTopicsHandler,
      kafka.CreateTopicsApi,
      2,
      { timeoutMs: 5000, validateOnly: true, topics: [{ name, numPartitions: 2, replicationFactor: 1 }] },
      ctx(),
    )
    expect(res.topics).toEqual([
      expect.objectContaining({ name, errorCode: NONE, errorMessage: null, numPartitions: -1, configs: [] }),
    ])
    const v5 = await kafkaCall(
      createTopicsHandler,
      kafka.CreateTopicsApi,
      5,
      { timeoutMs: 5000, validateOnly: true, topics: [{ name, numPartitions: 2, replicationFactor: 1 }] },
      ctx(),
    )
    expect(v5.topics[0]).toMatchObject({ name, errorCode: NONE, numPartitions: 2, replicationFactor: 1 })
    expect(await cluster.client.admin().listTopics()).not.toContain(name)
  })

  it('CreatePartitions grows a topic (with assignments) and refuses shrinking', async () => {
    const [grown, placed] = [newTopic(), newTopic()]
    await createTopicWithLeaders(cluster.client, grown, 1)
    await createTopicWithLeaders(cluster.client, placed, 1)
    const res = await kafkaCall(
      createPartitionsHandler,
      kafka.CreatePartitionsApi,
      3,
      {
        timeoutMs: 10_000,
        validateOnly: false,
        topics: [
          { name: grown, count: 3, assignments: null },
          { name: placed, count: 3, assignments: [{ brokerIds: [2] }, { brokerIds: [1] }] },
        ],
      },
      ctx(),
    )
    expect(res.results.map((r) => [r.name, r.errorCode])).toEqual([
      [grown, NONE],
      [placed, NONE],
    ])
    const [g, p] = await cluster.client.admin().describeTopics([grown, placed])
    expect(g!.partitions.length).toBe(3)
    expect(p!.partitions.map((x) => x.replicas)).toEqual([p!.partitions[0]!.replicas, [2], [1]])
    const shrink = await kafkaCall(
      createPartitionsHandler,
      kafka.CreatePartitionsApi,
      0,
      { timeoutMs: 10_000, validateOnly: false, topics: [{ name: grown, count: 2, assignments: null }] },
      ctx(),
    )
    expect(shrink.results[0]!.errorCode).toBe(code('INVALID_PARTITIONS'))
  })

  it('DeleteTopics deletes by name (v1) and by topic id (v6); unknown names and ids get their errors', async () => {
    const [byName, byId] = [newTopic(), newTopic()]
    await createTopicWithLeaders(cluster.client, byName, 1)
    await createTopicWithLeaders(cluster.client, byId, 1)
    const c = ctx()
    const v1 = await kafkaCall(
      deleteTopicsHandler,
      kafka.DeleteTopicsApi,
      1,
      { timeoutMs: 10_000, topicNames: [byName, 'no-such-topic'] },
      c,
    )
    expect(v1.responses.map((r) => [r.name, r.errorCode])).toEqual([
      [byName, NONE],
      ['no-such-topic', code('UNKNOWN_TOPIC_OR_PARTITION')],
    ])
    // The answering broker already shows the deletion (its next Metadata answer does not list it).
    expect(c.broker.cache.hasTopic(byName)).toBe(false)
    // The id as a Kafka client learns it: from CreateTopics v7 or Metadata; here from the broker's cache.
    await until('the broker knows the topic id', () => c.broker.cache.partitionsOf(byId)[0]?.topicId !== undefined)
    const id = Buffer.from(c.broker.cache.partitionsOf(byId)[0]!.topicId, 'base64url')
    const unknownId = Buffer.alloc(16, 7)
    const v6 = await kafkaCall(
      deleteTopicsHandler,
      kafka.DeleteTopicsApi,
      6,
      {
        timeoutMs: 10_000,
        topics: [
          { name: null, topicId: id },
          { name: null, topicId: unknownId },
        ],
      },
      c,
    )
    expect(v6.responses.map((r) => [r.name, r.errorCode])).toEqual([
      [null, 100],
      [byId, NONE],
    ])
    expect(v6.responses[1]!.topicId.equals(id)).toBe(true)
    const left = await cluster.client.admin().listTopics()
    expect(left).not.toContain(byName)
    expect(left).not.toContain(byId)
  })
})

describe('configs', () => {
  it('DescribeConfigs shows a topic’s effective configs with sources, synonyms and docs', async () => {
    const topic = newTopic()
    await cluster.client
      .admin()
      .createTopics([{ name: topic, numPartitions: 1, replicationFactor: 1, configs: { 'retention.ms': '3600000' } }])
    const res = await kafkaCall(
      describeConfigsHandler,
      kafka.DescribeConfigsApi,
      4,
      {
        includeSynonyms: true,
        includeDocumentation: true,
        resources: [
          { resourceType: TOPIC, resourceName: topic, configurationKeys: null },
          { resourceType: TOPIC, resourceName: 'no-such-topic', configurationKeys: null },
          { resourceType: 99, resourceName: 'x', configurationKeys: null },
        ],
      },
      ctx(),
    )
    const [t, missing, odd] = res.results
    expect(t!.errorCode).toBe(NONE)
    const retention = t!.configs.find((e) => e.name === 'retention.ms')!
    expect(retention).toMatchObject({ value: '3600000', configSource: 1, readOnly: false, configType: 5 })
    expect(retention.synonyms).toEqual([
      { name: 'retention.ms', value: '3600000', source: 1 },
      { name: 'log.retention.ms', value: '604800000', source: 5 },
    ])
    expect(retention.documentation).toMatch(/closed segments/)
    expect(t!.configs.find((e) => e.name === 'cleanup.policy')).toMatchObject({
      value: 'delete',
      configSource: 5,
      configType: 7,
    })
    expect(missing!.errorCode).toBe(code('UNKNOWN_TOPIC_OR_PARTITION'))
    expect(odd!.errorCode).toBe(code('INVALID_REQUEST'))
    const keys = await kafkaCall(
      describeConfigsHandler,
      kafka.DescribeConfigsApi,
      1,
      { resources: [{ resourceType: TOPIC, resourceName: topic, configurationKeys: ['retention.ms'] }] },
      ctx(),
    )
    expect(keys.results[0]!.configs.map((e) => [e.name, e.value, e.synonyms])).toEqual([
      ['retention.ms', '3600000', []],
    ])
  })

  it('DescribeConfigs lists this broker’s settings, and refuses another broker’s', async () => {
    const res = await kafkaCall(
      describeConfigsHandler,
      kafka.DescribeConfigsApi,
      3,
      {
        resources: [
          { resourceType: BROKER, resourceName: '1', configurationKeys: null },
          { resourceType: BROKER, resourceName: '2', configurationKeys: null },
        ],
      },
      ctx(),
    )
    const [mine, other] = res.results
    expect(mine!.errorCode).toBe(NONE)
    const settings = Object.fromEntries(mine!.configs.map((e) => [e.name, e.value]))
    expect(settings).toMatchObject({
      'broker.id': '1',
      'advertised.listeners': `PLAINTEXT://${KAFKA_HOST}:${KAFKA_PORT}`,
      'log.retention.ms': '604800000',
      'log.cleanup.policy': 'delete',
      'min.insync.replicas': '1',
    })
    expect(mine!.configs.every((e) => e.readOnly)).toBe(true)
    expect(other!.errorCode).toBe(code('INVALID_REQUEST'))
  })

  it('AlterConfigs replaces every override of a topic; broker resources are refused', async () => {
    const topic = newTopic()
    await cluster.client.admin().createTopics([
      {
        name: topic,
        numPartitions: 1,
        replicationFactor: 1,
        configs: { 'retention.ms': '3600000', 'segment.bytes': '1048576' },
      },
    ])
    const res = await kafkaCall(
      alterConfigsHandler,
      kafka.AlterConfigsApi,
      2,
      {
        validateOnly: false,
        resources: [
          {
            resourceType: TOPIC,
            resourceName: topic,
            configs: [
              { name: 'cleanup.policy', value: 'compact' },
              { name: 'segment.bytes', value: '2097152' },
            ],
          },
          { resourceType: BROKER, resourceName: '1', configs: [{ name: 'log.retention.ms', value: '1' }] },
        ],
      },
      ctx(),
    )
    expect(res.responses.map((r) => [r.resourceType, r.errorCode])).toEqual([
      [TOPIC, NONE],
      [BROKER, code('INVALID_REQUEST')],
    ])
    expect(await overridesOf(topic)).toEqual({ 'cleanup.policy': 'compact', 'segment.bytes': '2097152' })
    const bad = await kafkaCall(
      alterConfigsHandler,
      kafka.AlterConfigsApi,
      0,
      {
        validateOnly: false,
        resources: [{ resourceType: TOPIC, resourceName: topic, configs: [{ name: 'retention.ms', value: 'never' }] }],
      },
      ctx(),
    )
    expect(bad.responses[0]!.errorCode).toBe(code('INVALID_CONFIG'))
    expect(await overridesOf(topic)).toEqual({ 'cleanup.policy': 'compact', 'segment.bytes': '2097152' })
    const validated = await kafkaCall(
      alterConfigsHandler,
      kafka.AlterConfigsApi,
      1,
      { validateOnly: true, resources: [{ resourceType: TOPIC, resourceName: topic, configs: [] }] },
      ctx(),
    )
    expect(validated.responses[0]!.errorCode).toBe(NONE)
    expect(await overridesOf(topic)).toEqual({ 'cleanup.policy': 'compact', 'segment.bytes': '2097152' })
  })

  it('IncrementalAlterConfigs sets, deletes, appends to and subtracts from list configs', async () => {
    const topic = newTopic()
    await cluster.client
      .admin()
      .createTopics([{ name: topic, numPartitions: 1, replicationFactor: 1, configs: { 'retention.ms': '3600000' } }])
    const alter = (version: number, configs: kafka.IncrementalAlterConfigsRequestAlterableConfigInput[]) =>
      kafkaCall(
        incrementalAlterConfigsHandler,
        kafka.IncrementalAlterConfigsApi,
        version,
        { validateOnly: false, resources: [{ resourceType: TOPIC, resourceName: topic, configs }] },
        ctx(),
      )
    const SET = 0
    const DELETE = 1
    const APPEND = 2
    const SUBTRACT = 3
    const first = await alter(1, [
      { name: 'segment.bytes', configOperation: SET, value: '1048576' },
      { name: 'retention.ms', configOperation: DELETE, value: null },
      { name: 'cleanup.policy', configOperation: APPEND, value: 'compact' },
    ])
    expect(first.responses[0]!.errorCode).toBe(NONE)
    expect(await overridesOf(topic)).toEqual({ 'segment.bytes': '1048576', 'cleanup.policy': 'compact,delete' })
    const second = await alter(0, [{ name: 'cleanup.policy', configOperation: SUBTRACT, value: 'delete' }])
    expect(second.responses[0]!.errorCode).toBe(NONE)
    expect(await overridesOf(topic)).toEqual({ 'segment.bytes': '1048576', 'cleanup.policy': 'compact' })
    const notList = await alter(1, [{ name: 'retention.ms', configOperation: APPEND, value: '5' }])
    expect(notList.responses[0]!.errorCode).toBe(code('INVALID_CONFIG'))
    const emptied = await alter(1, [{ name: 'cleanup.policy', configOperation: SUBTRACT, value: 'compact' }])
    expect(emptied.responses[0]!.errorCode).toBe(code('INVALID_CONFIG'))
    const unknownOp = await alter(1, [{ name: 'retention.ms', configOperation: 9, value: '5' }])
    expect(unknownOp.responses[0]!.errorCode).toBe(code('INVALID_REQUEST'))
    expect(await overridesOf(topic)).toEqual({ 'segment.bytes': '1048576', 'cleanup.policy': 'compact' })
  })
})

describe('InitProducerId and DescribeCluster', () => {
  it('hands out a new producer id to every idempotent producer, and refuses transactional ids', async () => {
    const first = await kafkaCall(
      initProducerIdHandler,
      kafka.InitProducerIdApi,
      0,
      { transactionalId: null, transactionTimeoutMs: 60_000 },
      ctx(),
    )
    expect(first.errorCode).toBe(NONE)
    expect(first.producerId).toBeGreaterThanOrEqual(0n)
    const second = await kafkaCall(
      initProducerIdHandler,
      kafka.InitProducerIdApi,
      4,
      { transactionalId: null, transactionTimeoutMs: 60_000 },
      ctx(),
    )
    expect(second.producerId).not.toBe(first.producerId)
    // As in Kafka, without a transactional id the id and epoch in the request (v3+) are ignored:
    // an existing pair, and the 0/0 @platformatic/kafka sends, both get a fresh producer id.
    for (const [producerId, producerEpoch] of [
      [second.producerId, second.producerEpoch],
      [0n, 0],
    ] as const) {
      const again = await kafkaCall(
        initProducerIdHandler,
        kafka.InitProducerIdApi,
        3,
        { transactionalId: null, transactionTimeoutMs: 60_000, producerId, producerEpoch },
        ctx(),
      )
      expect(again.errorCode).toBe(NONE)
      expect([first.producerId, second.producerId]).not.toContain(again.producerId)
      expect(again.producerEpoch).toBe(0)
    }
    const txn = await kafkaCall(
      initProducerIdHandler,
      kafka.InitProducerIdApi,
      4,
      { transactionalId: 'txn', transactionTimeoutMs: 60_000 },
      ctx(),
    )
    expect(txn).toMatchObject({ errorCode: code('UNSUPPORTED_VERSION'), producerId: -1n, producerEpoch: -1 })
  })

  it('DescribeCluster names the cluster and this broker as the controller', async () => {
    const sdk = await cluster.client.admin().describeCluster()
    for (const version of [0, 1]) {
      const res = await kafkaCall(
        describeClusterHandler,
        kafka.DescribeClusterApi,
        version,
        { includeClusterAuthorizedOperations: false },
        ctx(),
      )
      expect(res).toMatchObject({ errorCode: NONE, clusterId: sdk.clusterId, controllerId: 1 })
      expect(res.brokers).toContainEqual({ brokerId: 1, host: KAFKA_HOST, port: KAFKA_PORT, rack: null })
    }
    const controllers = await kafkaCall(
      describeClusterHandler,
      kafka.DescribeClusterApi,
      1,
      { includeClusterAuthorizedOperations: false, endpointType: 2 },
      ctx(),
    )
    expect(controllers.errorCode).toBe(code('UNSUPPORTED_VERSION'))
  })
})
