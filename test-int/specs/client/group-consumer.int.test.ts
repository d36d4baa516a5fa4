/**
 * The group consumer against a REAL in-process cluster (test-int/src/client/group-cluster.ts):
 * queue semantics inside a group, publish-subscribe across groups, idle members beyond the
 * partition count, scaling 1 -> 3 -> 1 members while producing, manual commits and the
 * dead-letter path. Subscriptions, positions, group admin and bad input are in
 * group-consumer-positions.int.test.ts.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it, onTestFinished } from 'vitest'
import { DLQ_HEADERS, SluiceError, type ConsumerMessage } from '@sluice/client'
import {
  FAST,
  client,
  events,
  ids,
  keyOf,
  member,
  newTopic,
  produce,
  until,
  useGroupCluster,
} from '../../src/client/group-cluster.js'

useGroupCluster()

describe('group consumer: messaging models', () => {
  it('queue: inside a group each record goes to one member; with 4 members and 3 partitions one is idle', async () => {
    const topic = await newTopic(3)
    const group = `g-${randomUUID()}`
    const members = [0, 1, 2, 3].map(() => member(group, topic))
    await until(
      'a stable assignment of all 3 partitions',
      () =>
        members.flatMap((m) => m.consumer.assignment()).length === 3 &&
        members.every((m) => m.consumer.groupMetadata().generationId > 0),
    )
    const sizes = members.map((m) => m.consumer.assignment().length).sort()
    expect(sizes).toEqual([0, 1, 1, 1])
    const owners = new Map<string, number>()
    members.forEach((m, i) => {
      for (const tp of m.consumer.assignment()) owners.set(keyOf(tp), i)
    })
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
    expect(
      described.members
        .flatMap((m) => m.assignment)
        .map(keyOf)
        .sort(),
    ).toEqual([...owners.keys()].sort())
  })

  it('publish-subscribe: every group gets every record', async () => {
    const topic = await newTopic(2)
    const a = member(`ga-${randomUUID()}`, topic)
    const b1 = member(`gb-${randomUUID()}`, topic)
    await until(
      'both groups assigned',
      () => a.consumer.assignment().length === 2 && b1.consumer.assignment().length === 2,
    )
    await produce(topic, 100)
    await until('both groups saw 100', () => a.seen.length >= 100 && b1.seen.length >= 100)
    expect(new Set(ids(a.seen)).size).toBe(100)
    expect(new Set(ids(b1.seen)).size).toBe(100)
    expect([...ids(a.seen)].sort()).toEqual([...ids(b1.seen)].sort())
  })
})

/** Keeps producing numbered records until stopped; remembers where each landed. */
function backgroundProducer(topic: string): { stop: () => Promise<void>; produced: Map<string, string> } {
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
    await until(
      'every produced record processed',
      () => {
        const done = new Set(all.flatMap((m) => ids(m.seen)))
        return [...producer.produced.keys()].every((v) => done.has(v))
      },
      30_000,
    )
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
    const dups = all
      .flatMap((m, i) => m.seen.map((x) => `${x.value!.toString()}@m${i + 1}:${x.partition}/${x.offset}`))
      .filter((d, _, arr) => arr.filter((e) => e.split('@')[0] === d.split('@')[0]).length > 1)
    expect(processed.length - new Set(processed).size, `${events.join('\n')}\n${dups.slice(0, 20).join(' ')}`).toBe(0)
    for (const msg of all.flatMap((m) => m.seen))
      expect(producer.produced.get(msg.value!.toString())).toBe(`${msg.partition}/${msg.offset}`)
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
    onTestFinished(async () => {
      await c.close()
    })
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
    onTestFinished(async () => {
      await zombie.close()
    })
    zombie.subscribe({ topics: [topic] })
    const it = zombie.messages()
    await it.next()
    const old = zombie.groupMetadata()
    expect(old.generationId).toBeGreaterThan(0)
    // A newer generation forms without the zombie: a second member joins while the zombie's
    // loop is held (the app holds a message), so the zombie cannot apply its revocation yet.
    member(group, topic)
    await until(
      'a newer generation',
      async () => (await client.admin().describeGroups([group]))[0]!.generationId > old.generationId,
    )
    // Committing with the old generation must fail with a generation error.
    const err = await (
      zombie as unknown as { committer: { commit: (o: unknown, w: unknown, r: unknown) => Promise<void> } }
    ).committer
      .commit(
        [{ topic, partition: 0, offset: 1n }],
        { generationId: old.generationId, memberId: old.memberId, groupInstanceId: '' },
        { retry: false },
      )
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
    await producer.send({
      topic,
      records: [0, 1, 2, 3].map((i) => ({
        key: `k${i}`,
        value: i === 2 ? 'poison' : `ok-${i}`,
        headers: { trace: `t${i}` },
      })),
    })
    await producer.close()
    const c = client.consumer({ ...FAST, groupId: group })
    onTestFinished(async () => {
      await c.close()
    })
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
    onTestFinished(async () => {
      await reader.close()
    })
    await reader.assign([{ topic: dlq, partition: 0 }])
    const [dead] =
      (await (async () => {
        for await (const m of reader) return [m]
      })()) ?? []
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
    onTestFinished(async () => {
      await c.close()
    })
    c.subscribe({ topics: [topic] })
    let calls = 0
    const err = await c
      .run({
        retry: { attempts: 2, backoffMs: 5 },
        eachMessage: ({ message }) => {
          calls++
          if (message.value!.toString() === 'poison') throw new Error('boom')
        },
      })
      .done.catch((e: unknown) => e)
    expect((err as Error).message).toBe('boom')
    expect(calls).toBe(3)
    await c.commit()
    expect((await c.committed([{ topic, partition: 0 }]))[0]!.offset).toBe(1n)
    // The next run starts again at the failed record.
    const again: string[] = []
    const handle = c.run({
      eachMessage: ({ message }) => {
        again.push(message.value!.toString())
      },
    })
    await until('redelivered', () => again.length >= 2)
    expect(again).toEqual(['poison', 'after'])
    await handle.stop()
  })
})
