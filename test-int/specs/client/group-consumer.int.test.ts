/**
 * The group consumer against a REAL in-process cluster (one metadata service with its group
 * coordinator, two brokers, 127.0.0.1 port 0, temp dirs): queue semantics inside a group,
 * publish-subscribe across groups, idle members beyond the partition count, scaling 1 -> 3 -> 1
 * members while producing, manual commits, the dead-letter path, and typed errors.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { startBroker, type BrokerHandle } from '@sluice/broker'
import { startMetadataServer, type MetadataServerHandle } from '@sluice/metadata'
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import {
  DLQ_HEADERS, SluiceError, connect, type ConsumerMessage, type Logger, type GroupConsumer, type GroupConsumerOptions, type SluiceClient, type TopicPartition,
} from '@sluice/client'

let dir: string
/** Rebalance listener calls of every member, for failure messages. */
const events: string[] = []
let metadata: MetadataServerHandle
let brokers: BrokerHandle[] = []
let client: SluiceClient

async function until (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (await Promise.resolve().then(check).catch(() => false)) return
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}\n${events.slice(-30).join('\n')}`)
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sluice-groups-int-'))
  metadata = await startMetadataServer({
    host: '127.0.0.1', port: 0, dataDir: join(dir, 'meta'), defaultReplicationFactor: 1,
    groupCoordinator: { minSessionTimeoutMs: 100, initialRebalanceDelayMs: 100, sweepIntervalMs: 20, offsetsTopicNumPartitions: 3 },
  })
  for (const id of [1, 2]) {
    brokers.push(await startBroker({ brokerId: id, host: '127.0.0.1', port: 0, dataDir: join(dir, `b${id}`), metadataEndpoints: [metadata.endpoint] }))
  }
  client = await connect({ bootstrap: brokers.map((b) => b.endpoint), logger: eventLogger, retry: { retries: 10, initialBackoffMs: 50, maxBackoffMs: 500, factor: 2 } })
  await until('two live brokers', async () => (await client.admin().describeCluster()).brokers.length === 2)
}, 60_000)

afterAll(async () => {
  await client?.close()
  for (const b of brokers) await b.stop().catch(() => {})
  brokers = []
  await metadata?.stop().catch(() => {})
  if (dir !== undefined) await rm(dir, { recursive: true, force: true })
})

async function newTopic (partitions: number): Promise<string> {
  const name = `t-${randomUUID()}`
  await client.admin().createTopics([{ name, numPartitions: partitions, replicationFactor: 1 }])
  await until(`leaders for ${name}`, async () => (await client.admin().describeTopics([name]))[0]!.partitions.every((p) => p.leader >= 0))
  return name
}

/** Produces `n` records with values `${prefix}-${i}` spread over the partitions (keyed). */
async function produce (topic: string, n: number, prefix = 'v'): Promise<void> {
  const producer = client.producer({ lingerMs: 1 })
  await producer.send({ topic, records: Array.from({ length: n }, (_, i) => ({ key: `k${i}`, value: `${prefix}-${i}` })) })
  await producer.close()
}

const FAST: Partial<GroupConsumerOptions> = {
  sessionTimeoutMs: 3000, heartbeatIntervalMs: 100, maxPollIntervalMs: 10_000, maxWaitMs: 100, autoOffsetReset: 'earliest', autoCommitIntervalMs: 200,
}

interface Member {
  consumer: GroupConsumer
  seen: ConsumerMessage[]
  stop: () => Promise<void>
}

/** A member that records every message it processes (eachMessage). */
let memberNo = 0

/** Keeps the SDK's warnings and errors in `events` (shown when a wait times out or a check fails). */
const eventLogger: Logger = (() => {
  const make = (bindings: Record<string, unknown>): Logger => {
    const keep = (level: string) => (obj: Record<string, unknown>, msg?: string): void => {
      const err = obj.err as Error | undefined
      events.push(`${Date.now() % 100000} ${level} ${String(bindings.groupId ?? bindings.component ?? '')} ${msg ?? ''} ${err?.message ?? ''}`)
    }
    return { debug: () => {}, info: () => {}, warn: keep('WARN'), error: keep('ERROR'), child: (b) => make({ ...bindings, ...b }) }
  }
  return make({})
})()
function member (groupId: string, topic: string, extra: Partial<GroupConsumerOptions> = {}): Member {
  const no = ++memberNo
  const show = (what: string, tps: TopicPartition[]): void => {
    const g = consumer.groupMetadata()
    events.push(`${Date.now() % 100000} m#${no} ${g.memberId.slice(-8)} gen ${g.generationId} ${what} ${tps.map((tp) => tp.partition).join(',')}`)
  }
  const consumer: GroupConsumer = client.consumer({
    ...FAST, ...extra, groupId,
    rebalanceListener: {
      onPartitionsAssigned: (tps) => { show('assigned', tps) },
      onPartitionsRevoked: (tps) => { show('revoked', tps) },
      onPartitionsLost: (tps) => { show('LOST', tps) },
    },
  })
  consumer.subscribe({ topics: [topic] })
  const seen: ConsumerMessage[] = []
  const handle = consumer.run({ eachMessage: ({ message }) => { seen.push(message) } })
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

const ids = (ms: ConsumerMessage[]): string[] => ms.map((m) => m.value!.toString())
const keyOf = (tp: TopicPartition): string => `${tp.topic}/${tp.partition}`

describe('group consumer: messaging models', () => {
  it('queue: inside a group each record goes to one member; with 4 members and 3 partitions one is idle', async () => {
    const topic = await newTopic(3)
    const group = `g-${randomUUID()}`
    const members = [0, 1, 2, 3].map(() => member(group, topic))
    await until('a stable assignment of all 3 partitions', () =>
      members.flatMap((m) => m.consumer.assignment()).length === 3 && members.every((m) => m.consumer.groupMetadata().generationId > 0))
    const sizes = members.map((m) => m.consumer.assignment().length).sort()
    expect(sizes).toEqual([0, 1, 1, 1])
    const owners = new Map<string, number>()
    members.forEach((m, i) => { for (const tp of m.consumer.assignment()) owners.set(keyOf(tp), i) })
    expect(owners.size).toBe(3)
    await produce(topic, 300)
    await until('300 records processed', () => members.reduce((n, m) => n + m.seen.length, 0) >= 300)
    const all = members.flatMap((m) => ids(m.seen))
    expect(all).toHaveLength(300)
    expect(new Set(all).size).toBe(300)
    members.forEach((m, i) => {
      for (const msg of m.seen) expect(owners.get(keyOf(msg))).toBe(i)
    })
    const described = (await client.admin().describeGroups([group]))[0]!
    expect(described).toMatchObject({ state: 'Stable', protocolType: 'consumer', protocol: 'cooperative-sticky' })
    expect(described.members).toHaveLength(4)
    expect(described.members.flatMap((m) => m.assignment).map(keyOf).sort()).toEqual([...owners.keys()].sort())
  })

  it('publish-subscribe: every group gets every record', async () => {
    const topic = await newTopic(2)
    const a = member(`ga-${randomUUID()}`, topic)
    const b1 = member(`gb-${randomUUID()}`, topic)
    await until('both groups assigned', () => a.consumer.assignment().length === 2 && b1.consumer.assignment().length === 2)
    await produce(topic, 100)
    await until('both groups saw 100', () => a.seen.length >= 100 && b1.seen.length >= 100)
    expect(new Set(ids(a.seen)).size).toBe(100)
    expect(new Set(ids(b1.seen)).size).toBe(100)
    expect([...ids(a.seen)].sort()).toEqual([...ids(b1.seen)].sort())
  })
})

/** Keeps producing numbered records until stopped; remembers where each landed. */
function backgroundProducer (topic: string): { stop: () => Promise<void>, produced: Map<string, string> } {
  const producer = client.producer({ lingerMs: 2 })
  const produced = new Map<string, string>() // value -> partition/offset
  let running = true
  let n = 0
  const loop = (async () => {
    while (running) {
      const values = Array.from({ length: 10 }, () => `r-${n++}`)
      const metas = await producer.send({ topic, records: values.map((value) => ({ key: value, value })) })
      for (const [i, m] of metas.entries()) produced.set(values[i]!, `${m.partition}/${m.offset}`)
      await new Promise((resolve) => setTimeout(resolve, 10)) // pacing, not synchronisation
    }
  })()
  return {
    produced,
    stop: async () => {
      running = false
      await loop
      await producer.close()
    },
  }
}

describe('group consumer: membership changes', () => {
  it('scales 1 -> 3 -> 1 members while producing: everything processed, no duplicates after clean handovers, order kept per partition', async () => {
    const topic = await newTopic(6)
    const group = `g-${randomUUID()}`
    const producer = backgroundProducer(topic)
    onTestFinished(producer.stop)
    const m1 = member(group, topic)
    await until('m1 owns all 6', () => m1.consumer.assignment().length === 6)
    await until('m1 processed some', () => m1.seen.length > 50)
    const m2 = member(group, topic)
    const m3 = member(group, topic)
    const all = [m1, m2, m3]
    await until('2 partitions each', () => all.every((m) => m.consumer.assignment().length === 2))
    const mark = all.map((m) => m.seen.length)
    await until('all three processing', () => all.every((m, i) => m.seen.length > mark[i]! + 20))
    await m2.stop()
    await m3.stop()
    await until('m1 owns all 6 again', () => m1.consumer.assignment().length === 6)
    const mark1 = m1.seen.length
    await until('m1 processing again', () => m1.seen.length > mark1 + 50)
    await producer.stop()
    await until('every produced record processed', () => {
      const done = new Set(all.flatMap((m) => ids(m.seen)))
      return [...producer.produced.keys()].every((v) => done.has(v))
    }, 30_000)
    // Per member and partition, offsets only grow (each handover resumes from the committed position).
    for (const m of all) {
      const last = new Map<number, bigint>()
      for (const msg of m.seen) {
        const prev = last.get(msg.partition)
        if (prev !== undefined) expect(msg.offset, `partition ${msg.partition}`).toBeGreaterThan(prev)
        last.set(msg.partition, msg.offset)
      }
    }
    // Clean handovers commit what was processed before revoking: nothing is processed twice.
    const processed = all.flatMap((m) => ids(m.seen))
    const dups = all.flatMap((m, i) => m.seen.map((x) => `${x.value!.toString()}@m${i + 1}:${x.partition}/${x.offset}`))
      .filter((d, _, arr) => arr.filter((e) => e.split('@')[0] === d.split('@')[0]).length > 1)
    expect(processed.length - new Set(processed).size, `${events.join('\n')}\n${dups.slice(0, 20).join(' ')}`).toBe(0)
    for (const msg of all.flatMap((m) => m.seen)) expect(producer.produced.get(msg.value!.toString())).toBe(`${msg.partition}/${msg.offset}`)
  }, 60_000)

  it('manual commit: the committed offset is last processed + 1, and a new member resumes there', async () => {
    const topic = await newTopic(1)
    const group = `g-${randomUUID()}`
    await produce(topic, 10)
    const c1 = client.consumer({ ...FAST, groupId: group, autoCommit: false })
    c1.subscribe({ topics: [topic] })
    const got: ConsumerMessage[] = []
    for await (const m of c1) {
      got.push(m)
      if (m.offset === 3n) await c1.commit() // commits 3 (the message in hand is not processed yet)
      if (got.length === 6) break // leaving the loop counts offset 5 as processed
    }
    expect((await c1.committed([{ topic, partition: 0 }]))[0]!.offset).toBe(3n)
    await c1.commitAsync()
    expect((await c1.committed([{ topic, partition: 0 }]))[0]!.offset).toBe(6n)
    await c1.commit([{ topic, partition: 0, offset: 4n }])
    expect((await client.admin().fetchOffsets(group)).map((o) => o.offset)).toEqual([4n])
    await c1.close()
    const c2 = member(group, topic, { autoCommit: false })
    await until('c2 read to the end', () => c2.seen.length >= 6)
    expect(c2.seen.map((m) => m.offset)).toEqual([4n, 5n, 6n, 7n, 8n, 9n])
  })

  it('autoOffsetReset none: a partition without a committed offset is a typed error', async () => {
    const topic = await newTopic(1)
    const c = client.consumer({ ...FAST, groupId: `g-${randomUUID()}`, autoOffsetReset: 'none' })
    onTestFinished(async () => { await c.close() })
    c.subscribe({ topics: [topic] })
    const err = await c.run({ eachMessage: () => {} }).done.catch((e: unknown) => e)
    expect(err).toBeInstanceOf(SluiceError)
    expect(err).toMatchObject({ code: 'OFFSET_OUT_OF_RANGE', details: { noCommittedOffset: true } })
  })

  it('a commit from a member that lost its generation is rejected', async () => {
    const topic = await newTopic(2)
    const group = `g-${randomUUID()}`
    await produce(topic, 20)
    const zombie = client.consumer({ ...FAST, groupId: group, autoCommit: false })
    onTestFinished(async () => { await zombie.close() })
    zombie.subscribe({ topics: [topic] })
    const it = zombie.messages()
    await it.next()
    const old = zombie.groupMetadata()
    expect(old.generationId).toBeGreaterThan(0)
    // A newer generation forms without the zombie: a second member joins while the zombie's
    // loop is held (the app holds a message), so the zombie cannot apply its revocation yet.
    member(group, topic)
    await until('a newer generation', async () => (await client.admin().describeGroups([group]))[0]!.generationId > old.generationId)
    // Committing with the old generation must fail with a generation error.
    const err = await (zombie as unknown as { committer: { commit: (o: unknown, w: unknown, r: unknown) => Promise<void> } }).committer
      .commit([{ topic, partition: 0, offset: 1n }], { generationId: old.generationId, memberId: old.memberId, groupInstanceId: '' }, { retry: false })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(SluiceError)
    expect(['ILLEGAL_GENERATION', 'UNKNOWN_MEMBER_ID', 'REBALANCE_IN_PROGRESS']).toContain((err as SluiceError).code)
    await it.return?.()
  })
})

describe('group consumer: retry and dead-letter', () => {
  it('retries a failing record, then writes it to the dead-letter topic with its headers and moves on', async () => {
    const topic = await newTopic(1)
    const dlq = await newTopic(1)
    const group = `g-${randomUUID()}`
    const producer = client.producer({ lingerMs: 0 })
    await producer.send({ topic, records: [0, 1, 2, 3].map((i) => ({ key: `k${i}`, value: i === 2 ? 'poison' : `ok-${i}`, headers: { trace: `t${i}` } })) })
    await producer.close()
    const c = client.consumer({ ...FAST, groupId: group })
    onTestFinished(async () => { await c.close() })
    c.subscribe({ topics: [topic] })
    const attempts = new Map<string, number>()
    const ok: string[] = []
    const handle = c.run({
      retry: { attempts: 3, backoffMs: 10 },
      deadLetterTopic: dlq,
      eachMessage: ({ message }) => {
        const v = message.value!.toString()
        attempts.set(v, (attempts.get(v) ?? 0) + 1)
        if (v === 'poison') throw new Error('cannot parse poison')
        ok.push(v)
      },
    })
    await until('the records after the poison one processed', () => ok.includes('ok-3'))
    expect(attempts.get('poison')).toBe(3)
    expect(ok).toEqual(['ok-0', 'ok-1', 'ok-3'])
    await until('offset 4 committed', async () => (await c.committed([{ topic, partition: 0 }]))[0]!.offset === 4n)
    await handle.stop()
    const reader = client.consumer({ maxWaitMs: 100, offsetReset: 'earliest' })
    onTestFinished(async () => { await reader.close() })
    await reader.assign([{ topic: dlq, partition: 0 }])
    const [dead] = await (async () => { for await (const m of reader) return [m] })() ?? []
    expect(dead!.key!.toString()).toBe('k2')
    expect(dead!.value!.toString()).toBe('poison')
    const h = Object.fromEntries(dead!.headers.map((x) => [x.key, x.value?.toString()]))
    expect(h).toMatchObject({
      trace: 't2',
      [DLQ_HEADERS.topic]: topic,
      [DLQ_HEADERS.partition]: '0',
      [DLQ_HEADERS.offset]: '2',
      [DLQ_HEADERS.attempts]: '3',
    })
    expect(h[DLQ_HEADERS.error]).toContain('cannot parse poison')
  })

  it('without a dead-letter topic the error ends the run, the record is not skipped, and its offset is not committed', async () => {
    const topic = await newTopic(1)
    const group = `g-${randomUUID()}`
    await produce(topic, 1, 'first')
    const producer = client.producer({ lingerMs: 0 })
    await producer.send({ topic, records: [{ value: 'poison' }, { value: 'after' }] })
    await producer.close()
    const c = client.consumer({ ...FAST, groupId: group })
    onTestFinished(async () => { await c.close() })
    c.subscribe({ topics: [topic] })
    let calls = 0
    const err = await c.run({
      retry: { attempts: 2, backoffMs: 5 },
      eachMessage: ({ message }) => { calls++; if (message.value!.toString() === 'poison') throw new Error('boom') },
    }).done.catch((e: unknown) => e)
    expect((err as Error).message).toBe('boom')
    expect(calls).toBe(3)
    await c.commit()
    expect((await c.committed([{ topic, partition: 0 }]))[0]!.offset).toBe(1n)
    // The next run starts again at the failed record.
    const again: string[] = []
    const handle = c.run({ eachMessage: ({ message }) => { again.push(message.value!.toString()) } })
    await until('redelivered', () => again.length >= 2)
    expect(again).toEqual(['poison', 'after'])
    await handle.stop()
  })
})

describe('group consumer: subscriptions and positions', () => {
  it('a pattern subscription picks up matching topics, including ones created later', async () => {
    const prefix = `pat${randomUUID().slice(0, 8)}`
    const t1 = `${prefix}-a`
    await client.admin().createTopics([{ name: t1, numPartitions: 1, replicationFactor: 1 }, { name: `x${prefix}-nomatch`, numPartitions: 1, replicationFactor: 1 }])
    const c = client.consumer({ ...FAST, groupId: `g-${randomUUID()}`, metadataMaxAgeMs: 300 })
    onTestFinished(async () => { await c.close() })
    c.subscribe({ topics: new RegExp(`${prefix}-.*`) })
    const seen: string[] = []
    const handle = c.run({ eachMessage: ({ message }) => { seen.push(`${message.topic}:${message.value!.toString()}`) } })
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
    onTestFinished(async () => { await c.close() })
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
    await until('one partition each', () => a.consumer.assignment().length === 1 && b.consumer.assignment().length === 1)
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
    await until('offsets committed', async () => (await client.admin().fetchOffsets(group)).reduce((n, o) => n + o.offset, 0n) === 20n)
    expect((await client.admin().listGroups()).find((g) => g.groupId === group)).toMatchObject({ state: 'Stable', protocolType: 'consumer' })
    const refused = await client.admin().resetOffsets(group, { topic, to: 'earliest' }).catch((e: unknown) => e)
    expect(refused).toMatchObject({ code: 'NON_EMPTY_GROUP' })
    const notDeleted = await client.admin().deleteGroups([group]).catch((e: unknown) => e)
    expect(notDeleted).toMatchObject({ code: 'NON_EMPTY_GROUP' })
    await m.stop()
    await until('the group is empty', async () => (await client.admin().describeGroups([group]))[0]!.state === 'Empty')
    const before = await client.admin().fetchOffsets(group)
    const plan = await client.admin().resetOffsets(group, { topic, to: { shiftBy: -3n }, dryRun: true })
    expect(plan.map((p) => p.target)).toEqual(plan.map((p) => p.current - 3n < 0n ? 0n : p.current - 3n))
    expect(await client.admin().fetchOffsets(group)).toEqual(before) // a dry run changes nothing
    await client.admin().resetOffsets(group, { topic, to: 'earliest' })
    expect((await client.admin().fetchOffsets(group)).map((o) => o.offset)).toEqual([0n, 0n])
    await client.admin().resetOffsets(group, { topic, partitions: [1], to: { offset: 1_000_000n } })
    const ends = await client.admin().listOffsets([{ topic }], 'latest')
    expect((await client.admin().fetchOffsets(group))[1]!.offset).toBe(ends[1]!.offset) // clamped to the log end
    await client.admin().deleteGroups([group])
    expect((await client.admin().listGroups()).some((g) => g.groupId === group)).toBe(false)
    const missing = await client.admin().describeGroups([`missing-${randomUUID()}`]).catch((e: unknown) => e)
    expect(missing).toMatchObject({ code: 'GROUP_ID_NOT_FOUND' })
  })
})

describe('group consumer: bad input', () => {
  it('rejects invalid options and misuse with typed errors', async () => {
    expect(() => client.consumer({ groupId: '' })).toThrow(RangeError)
    expect(() => client.consumer({ groupId: 'g', heartbeatIntervalMs: 5000, sessionTimeoutMs: 3000 })).toThrow(/heartbeatIntervalMs/)
    expect(() => client.consumer({ groupId: 'g', assignors: ['sticky' as 'range'] })).toThrow(/assignors/)
    const c = client.consumer({ ...FAST, groupId: `g-${randomUUID()}` })
    onTestFinished(async () => { await c.close() })
    expect(() => c.run({ eachMessage: () => {} })).toThrow(expect.objectContaining({ code: 'INVALID_ARGUMENT' })) // not subscribed
    expect(() => { c.subscribe({ topics: [] }) }).toThrow(TypeError)
    c.subscribe({ topics: ['x'] })
    expect(() => c.run({ eachBatch: () => {}, deadLetterTopic: 'dlq' })).toThrow(/eachMessage/)
    expect(() => c.run({ eachMessage: () => {}, retry: { attempts: 0, backoffMs: 1 } })).toThrow(RangeError)
    // The coordinator refuses a session timeout below its minimum: the run ends with the typed error.
    const bad = client.consumer({ ...FAST, groupId: `g-${randomUUID()}`, sessionTimeoutMs: 50, heartbeatIntervalMs: 10 })
    onTestFinished(async () => { await bad.close() })
    bad.subscribe({ topics: ['x'] })
    await expect(bad.run({ eachMessage: () => {} }).done).rejects.toMatchObject({ code: 'INVALID_SESSION_TIMEOUT' })
  })
})
