/**
 * The group consumer against a REAL in-process cluster (test-int/src/client/group-cluster.ts):
 * pattern subscriptions, pause/resume/seek inside a group, static membership, the group admin
 * API and typed errors for bad input. Messaging models, membership changes and the dead-letter
 * path are in group-consumer.int.test.ts.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it, onTestFinished } from 'vitest'
import { FAST, client, member, newTopic, produce, until, useGroupCluster } from '../../src/client/group-cluster.js'

useGroupCluster()

describe('group consumer: subscriptions and positions', () => {
  it('a pattern subscription picks up matching topics, including ones created later', async () => {
    const prefix = `pat${randomUUID().slice(0, 8)}`
    const t1 = `${prefix}-a`
    await client.admin().createTopics([
      { name: t1, numPartitions: 1, replicationFactor: 1 },
      { name: `x${prefix}-nomatch`, numPartitions: 1, replicationFactor: 1 },
    ])
    const c = client.consumer({ ...FAST, groupId: `g-${randomUUID()}`, metadataMaxAgeMs: 300 })
    onTestFinished(async () => {
      await c.close()
    })
    c.subscribe({ topics: new RegExp(`${prefix}-.*`) })
    const seen: string[] = []
    const handle = c.run({
      eachMessage: ({ message }) => {
        seen.push(`${message.topic}:${message.value!.toString()}`)
      },
    })
    onTestFinished(handle.stop)
    await until('subscribed to the first topic', () => c.assignment().length === 1)
    expect(c.subscription()).toEqual([t1])
    const t2 = `${prefix}-b`
    await client.admin().createTopics([{ name: t2, numPartitions: 2, replicationFactor: 1 }])
    await until('the new topic is assigned too', () => c.assignment().length === 3)
    await produce(t2, 5)
    await until('records of the new topic', () => seen.filter((s) => s.startsWith(t2)).length === 5)
  })

  it('pause, resume and seek inside a group; the next commit stores the sought position', async () => {
    const topic = await newTopic(1)
    await produce(topic, 10)
    const c = client.consumer({ ...FAST, groupId: `g-${randomUUID()}`, autoCommit: false })
    onTestFinished(async () => {
      await c.close()
    })
    c.subscribe({ topics: [topic] })
    const it = c.messages()
    const first = await it.next()
    expect(first.value!.offset).toBe(0n)
    const tp = { topic, partition: 0 }
    c.seek({ ...tp, offset: 7n })
    expect((await it.next()).value!.offset).toBe(7n)
    c.pause([tp])
    const pending = it.next()
    const raced = await Promise.race([pending, new Promise((resolve) => setTimeout(() => resolve('paused'), 300))])
    expect(raced).toBe('paused') // nothing is delivered while paused
    c.resume([tp])
    expect((await pending).value!.offset).toBe(8n)
    await c.commit()
    expect((await c.committed([tp]))[0]!.offset).toBe(8n) // 8 is in hand, not yet processed
    await it.return?.()
  })

  it('static membership: a member that restarts within the session timeout gets its partitions back without a rebalance', async () => {
    const topic = await newTopic(2)
    const group = `g-${randomUUID()}`
    const a = member(group, topic, { groupInstanceId: 'pod-a' })
    const b = member(group, topic, { groupInstanceId: 'pod-b' })
    await until(
      'one partition each',
      () => a.consumer.assignment().length === 1 && b.consumer.assignment().length === 1,
    )
    const aOwned = a.consumer.assignment()
    const generation = (await client.admin().describeGroups([group]))[0]!.generationId
    await a.stop() // static members do not leave the group on close
    const a2 = member(group, topic, { groupInstanceId: 'pod-a' })
    await until('the restarted member owns its partition again', () => a2.consumer.assignment().length === 1)
    expect(a2.consumer.assignment()).toEqual(aOwned)
    const after = (await client.admin().describeGroups([group]))[0]!
    expect(after.generationId).toBe(generation)
    expect(after.members.map((m) => m.groupInstanceId).sort()).toEqual(['pod-a', 'pod-b'])
  })
})

describe('admin: consumer groups', () => {
  it('lists, describes, resets offsets of an empty group (dry run first) and deletes it; active groups are refused', async () => {
    const topic = await newTopic(2)
    const group = `g-${randomUUID()}`
    await produce(topic, 20)
    const m = member(group, topic)
    await until('20 processed', () => m.seen.length === 20)
    await until(
      'offsets committed',
      async () => (await client.admin().fetchOffsets(group)).reduce((n, o) => n + o.offset, 0n) === 20n,
    )
    expect((await client.admin().listGroups()).find((g) => g.groupId === group)).toMatchObject({
      state: 'Stable',
      protocolType: 'consumer',
    })
    const refused = await client
      .admin()
      .resetOffsets(group, { topic, to: 'earliest' })
      .catch((e: unknown) => e)
    expect(refused).toMatchObject({ code: 'NON_EMPTY_GROUP' })
    const notDeleted = await client
      .admin()
      .deleteGroups([group])
      .catch((e: unknown) => e)
    expect(notDeleted).toMatchObject({ code: 'NON_EMPTY_GROUP' })
    await m.stop()
    await until('the group is empty', async () => (await client.admin().describeGroups([group]))[0]!.state === 'Empty')
    const before = await client.admin().fetchOffsets(group)
    const plan = await client.admin().resetOffsets(group, { topic, to: { shiftBy: -3n }, dryRun: true })
    expect(plan.map((p) => p.target)).toEqual(plan.map((p) => (p.current - 3n < 0n ? 0n : p.current - 3n)))
    expect(await client.admin().fetchOffsets(group)).toEqual(before) // a dry run changes nothing
    await client.admin().resetOffsets(group, { topic, to: 'earliest' })
    expect((await client.admin().fetchOffsets(group)).map((o) => o.offset)).toEqual([0n, 0n])
    await client.admin().resetOffsets(group, { topic, partitions: [1], to: { offset: 1_000_000n } })
    const ends = await client.admin().listOffsets([{ topic }], 'latest')
    expect((await client.admin().fetchOffsets(group))[1]!.offset).toBe(ends[1]!.offset) // clamped to the log end
    await client.admin().deleteGroups([group])
    expect((await client.admin().listGroups()).some((g) => g.groupId === group)).toBe(false)
    const missing = await client
      .admin()
      .describeGroups([`missing-${randomUUID()}`])
      .catch((e: unknown) => e)
    expect(missing).toMatchObject({ code: 'GROUP_ID_NOT_FOUND' })
  })
})

describe('group consumer: bad input', () => {
  it('rejects invalid options and misuse with typed errors', async () => {
    expect(() => client.consumer({ groupId: '' })).toThrow(RangeError)
    expect(() => client.consumer({ groupId: 'g', heartbeatIntervalMs: 5000, sessionTimeoutMs: 3000 })).toThrow(
      /heartbeatIntervalMs/,
    )
    expect(() => client.consumer({ groupId: 'g', assignors: ['sticky' as 'range'] })).toThrow(/assignors/)
    const c = client.consumer({ ...FAST, groupId: `g-${randomUUID()}` })
    onTestFinished(async () => {
      await c.close()
    })
    expect(() => c.run({ eachMessage: () => {} })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' })) // not subscribed
    expect(() => {
      c.subscribe({ topics: [] })
    }).toThrow(TypeError)
    c.subscribe({ topics: ['x'] })
    expect(() => c.run({ eachBatch: () => {}, deadLetterTopic: 'dlq' })).toThrow(/eachMessage/)
    expect(() => c.run({ eachMessage: () => {}, retry: { attempts: 0, backoffMs: 1 } })).toThrow(RangeError)
    // The coordinator refuses a session timeout below its minimum: the run ends with the typed error.
    const bad = client.consumer({
      ...FAST,
      groupId: `g-${randomUUID()}`,
      sessionTimeoutMs: 50,
      heartbeatIntervalMs: 10,
    })
    onTestFinished(async () => {
      await bad.close()
    })
    bad.subscribe({ topics: ['x'] })
    await expect(bad.run({ eachMessage: () => {} }).done).rejects.toMatchObject({ code: 'INVALID_SESSION_TIMEOUT' })
  })
})
