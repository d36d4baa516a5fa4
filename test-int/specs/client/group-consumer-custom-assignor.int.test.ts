/**
 * A custom assignor against a REAL in-process cluster: the members' subscription userData reaches
 * the leader's assign(), each member's assignment userData reaches its onAssignment() before the
 * rebalance listener runs, the group's protocol is the custom assignor's name, describeGroups
 * shows both userData bytes of every member, a rebalance asked for during a join round gets a
 * round of its own, and malformed custom assignors are refused with the option errors.
 */
import { randomUUID } from 'node:crypto'
import { describe, expect, it, onTestFinished } from 'vitest'
import type { CustomAssignor, CustomAssignorInput, GroupConsumer, ReceivedAssignment } from '@sluice/client'
import { FAST, client, newTopic, until, useGroupCluster } from '../../src/client/group-cluster.js'

useGroupCluster()

/** Gives partitions round-robin over the members sorted by the label in their userData. */
function labelAssignor(label: string, seenByLeader: CustomAssignorInput[], calls: string[]): CustomAssignor {
  return {
    name: 'by-label',
    rebalanceProtocol: 'eager',
    subscriptionUserData: () => Buffer.from(label),
    assign(input) {
      seenByLeader.push(input)
      const members = [...input.members].sort((a, b) => String(a.userData).localeCompare(String(b.userData)))
      const out = new Map(
        members.map((m) => [m.memberId, { partitions: [] as { topic: string; partition: number }[] }]),
      )
      let i = 0
      for (const [topic, n] of [...input.partitionsPerTopic].sort())
        for (let p = 0; p < n; p++)
          out.get(members[i++ % members.length]!.memberId)!.partitions.push({ topic, partition: p })
      return new Map(
        members.map((m) => [
          m.memberId,
          { partitions: out.get(m.memberId)!.partitions, userData: Buffer.from(`for ${String(m.userData)}`) },
        ]),
      )
    },
    onAssignment(a: ReceivedAssignment) {
      calls.push(
        `onAssignment ${a.generationId} ${String(a.userData)} ${a.partitions.map((tp) => tp.partition).join(',')}`,
      )
    },
  }
}

describe('group consumer: custom assignor', () => {
  it('carries subscription userData to the leader and assignment userData to each member', async () => {
    const topic = await newTopic(4)
    const groupId = `g-${randomUUID()}`
    const seenByLeader: CustomAssignorInput[] = []
    const consumers: { consumer: GroupConsumer; calls: string[] }[] = []
    for (const label of ['b', 'a']) {
      const calls: string[] = []
      const consumer = client.consumer({
        ...FAST,
        groupId,
        assignors: [labelAssignor(label, seenByLeader, calls)],
        rebalanceListener: {
          onPartitionsAssigned: (tps) => {
            calls.push(`assigned ${tps.map((tp) => tp.partition).join(',')}`)
          },
        },
      })
      consumer.subscribe({ topics: [topic] })
      const handle = consumer.run({ eachMessage: () => {} })
      onTestFinished(async () => {
        await handle.stop()
        await consumer.close()
      })
      consumers.push({ consumer, calls })
    }
    await until(
      'both members in one generation with all 4 partitions',
      () =>
        consumers.flatMap((c) => c.consumer.assignment()).length === 4 &&
        new Set(consumers.map((c) => c.consumer.groupMetadata().generationId)).size === 1 &&
        consumers.every((c) => c.consumer.assignment().length === 2),
    )
    const last = seenByLeader.at(-1)!
    expect(last.members.map((m) => String(m.userData)).sort()).toEqual(['a', 'b'])
    expect(last.partitionsPerTopic.get(topic)).toBe(4)
    const [b, a] = consumers as [(typeof consumers)[0], (typeof consumers)[0]]
    // Member 'a' sorts first: partitions 0 and 2; 'b' gets 1 and 3.
    expect(a.consumer.assignment().map((tp) => tp.partition)).toEqual([0, 2])
    expect(b.consumer.assignment().map((tp) => tp.partition)).toEqual([1, 3])
    const generation = a.consumer.groupMetadata().generationId
    await until('the listener ran after the hook', () => a.calls.at(-1)?.startsWith('assigned') === true)
    const i = a.calls.lastIndexOf(`onAssignment ${generation} for a 0,2`)
    expect(i).toBeGreaterThanOrEqual(0)
    expect(a.calls.slice(i + 1).some((c) => c.startsWith('assigned'))).toBe(true)
    expect(b.calls).toContain(`onAssignment ${generation} for b 1,3`)
    const described = (await client.admin().describeGroups([groupId]))[0]!
    expect(described).toMatchObject({ state: 'Stable', protocolType: 'consumer', protocol: 'by-label' })
    // The assignor's own bytes, for tools that know its format (sluice streams describe).
    const userData = described.members
      .map((m) => `${String(m.subscriptionUserData)} -> ${String(m.assignmentUserData)}`)
      .sort()
    expect(userData).toEqual(['a -> for a', 'b -> for b'])
  })

  it('runs another generation for an enforceRebalance() made while a join round is under way', async () => {
    // As a Connect worker adding work once the leader's assign() has read what exists: that
    // round's assignment misses the new work, so the request must bring a round of its own.
    const topic = await newTopic(1)
    const generations: number[] = []
    let c: GroupConsumer | undefined
    const asking: CustomAssignor = {
      name: 'asks-again',
      rebalanceProtocol: 'eager',
      assign(input) {
        if (generations.length === 0) c!.enforceRebalance('new work after assign() read the state')
        return new Map(input.members.map((m) => [m.memberId, { partitions: [] }]))
      },
      onAssignment: (a) => {
        generations.push(a.generationId)
      },
    }
    c = client.consumer({ ...FAST, groupId: `g-${randomUUID()}`, assignors: [asking] })
    c.subscribe({ topics: [topic] })
    const handle = c.run({ eachMessage: () => {} })
    onTestFinished(async () => {
      await handle.stop()
      await c.close()
    })
    await until('a second generation', () => generations.length >= 2)
    expect(generations[1]).toBeGreaterThan(generations[0]!)
  })

  it('ends the consumer with a typed error naming the assignor when assign() returns garbage', async () => {
    const topic = await newTopic(1)
    const broken: CustomAssignor = {
      name: 'broken',
      rebalanceProtocol: 'eager',
      assign: (input) => new Map(input.members.map((m) => [m.memberId, { partitions: [{ topic, partition: -1 }] }])),
    }
    const c = client.consumer({ ...FAST, groupId: `g-${randomUUID()}`, assignors: [broken] })
    onTestFinished(async () => {
      await c.close()
    })
    c.subscribe({ topics: [topic] })
    await expect(c.run({ eachMessage: () => {} }).done).rejects.toMatchObject({
      code: 'INVALID_ARGUMENT',
      message: expect.stringMatching(/custom assignor broken.*bad partition/),
    })
  })

  it('refuses malformed custom assignors with the option errors', () => {
    const ok = labelAssignor('x', [], [])
    expect(() => client.consumer({ groupId: 'g', assignors: [{ ...ok, name: 'range' }] })).toThrow(/built-in/)
    expect(() => client.consumer({ groupId: 'g', assignors: [{ ...ok, name: '' }] })).toThrow(/non-empty name/)
    expect(() =>
      client.consumer({ groupId: 'g', assignors: [{ ...ok, rebalanceProtocol: 'sometimes' as 'eager' }] }),
    ).toThrow(/rebalanceProtocol/)
    expect(() =>
      client.consumer({
        groupId: 'g',
        assignors: [{ ...ok, assign: undefined as unknown as CustomAssignor['assign'] }],
      }),
    ).toThrow(/assign must be a function/)
    expect(() => client.consumer({ groupId: 'g', assignors: [ok, { ...ok }] })).toThrow(/repeat a name/)
    // Built-in names still work beside a custom assignor.
    const c = client.consumer({ groupId: 'g', assignors: [ok, 'range'] })
    onTestFinished(async () => {
      await c.close()
    })
  })
})
