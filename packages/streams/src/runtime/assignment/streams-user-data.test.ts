/**
 * The streams userData codec: what is encoded decodes to the same value, a higher version with
 * appended fields is read as the known one, and every malformed input is a StreamsError.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { StreamsError } from '../../errors.js'
import {
  decodeAssignmentInfo,
  decodeSubscriptionInfo,
  encodeAssignmentInfo,
  encodeSubscriptionInfo,
  type StreamsAssignmentInfo,
  type StreamsSubscriptionInfo,
} from './streams-user-data.js'

const taskArb = fc.record({ subtopology: fc.nat({ max: 50 }), partition: fc.nat({ max: 2 ** 31 - 1 }) })
const subscriptionArb: fc.Arbitrary<StreamsSubscriptionInfo> = fc.record({
  instanceId: fc.string({ maxLength: 40 }),
  endpoint: fc.string({ maxLength: 40 }),
  activeTasks: fc.array(taskArb, { maxLength: 20 }),
  standbyTasks: fc.array(fc.record({ task: taskArb, lag: fc.nat() }), { maxLength: 20 }),
})
const tpArb = fc.record({ topic: fc.string({ minLength: 1, maxLength: 20 }), partition: fc.nat({ max: 1000 }) })
const assignmentArb: fc.Arbitrary<StreamsAssignmentInfo> = fc.record({
  activeTasks: fc.array(taskArb, { maxLength: 20 }),
  standbyTasks: fc.array(taskArb, { maxLength: 20 }),
  partitionsByEndpoint: fc
    .uniqueArray(fc.tuple(fc.string({ maxLength: 30 }), fc.array(tpArb, { maxLength: 10 })), {
      selector: ([e]) => e,
      maxLength: 5,
    })
    .map((entries) => new Map(entries)),
})

/** The endpoint map groups partitions by topic on the wire; compare per endpoint as sorted sets. */
function normalised(a: StreamsAssignmentInfo): unknown {
  return {
    ...a,
    partitionsByEndpoint: [...a.partitionsByEndpoint].map(([e, tps]) => [
      e,
      tps.map((tp) => `${tp.topic}/${tp.partition}`).sort(),
    ]),
  }
}

function expectStreamsError(f: () => unknown): void {
  let caught: unknown
  try {
    f()
  } catch (err) {
    caught = err
  }
  expect(caught).toBeInstanceOf(StreamsError)
  expect((caught as StreamsError).code).toBe('RUNTIME')
}

describe('streams userData', () => {
  it('round-trips subscriptions and assignments', () => {
    fc.assert(
      fc.property(subscriptionArb, (s) => {
        expect(decodeSubscriptionInfo(encodeSubscriptionInfo(s))).toEqual(s)
      }),
    )
    fc.assert(
      fc.property(assignmentArb, (a) => {
        expect(normalised(decodeAssignmentInfo(encodeAssignmentInfo(a)))).toEqual(normalised(a))
      }),
    )
  })

  it('reads a higher version with appended fields as the known one', () => {
    const s: StreamsSubscriptionInfo = {
      instanceId: 'i-1',
      endpoint: 'h:1',
      activeTasks: [{ subtopology: 0, partition: 1 }],
      standbyTasks: [{ task: { subtopology: 1, partition: 2 }, lag: 7 }],
    }
    const later = Buffer.concat([encodeSubscriptionInfo(s), Buffer.from([1, 2, 3])])
    later[0] = 9
    expect(decodeSubscriptionInfo(later)).toEqual(s)
  })

  it("carries every sub-topology's source topics from version 2, and reads a version 1 assignment without them", () => {
    const a: StreamsAssignmentInfo = {
      activeTasks: [{ subtopology: 1, partition: 0 }],
      standbyTasks: [],
      partitionsByEndpoint: new Map(),
      subtopologySources: new Map([
        [0, ['words']],
        [1, ['app-counts-repartition', 'other']],
      ]),
    }
    const bytes = encodeAssignmentInfo(a)
    expect(bytes[0]).toBe(2)
    expect(decodeAssignmentInfo(bytes)).toEqual(a)
    for (let n = 0; n < bytes.length; n++) expectStreamsError(() => decodeAssignmentInfo(bytes.subarray(0, n)))
    // A version 1 leader's bytes: the same fields, no sources.
    const v1 = Buffer.from(encodeAssignmentInfo({ ...a, subtopologySources: new Map() }).subarray(0, -4))
    v1[0] = 1
    const { subtopologySources: _, ...known } = a
    expect(decodeAssignmentInfo(v1)).toEqual(known)
  })

  it('turns every truncation, bad version or bad number into a StreamsError', () => {
    const s = encodeSubscriptionInfo({
      instanceId: 'instance',
      endpoint: 'localhost:8080',
      activeTasks: [{ subtopology: 0, partition: 3 }],
      standbyTasks: [{ task: { subtopology: 2, partition: 5 }, lag: 12 }],
    })
    const a = encodeAssignmentInfo({
      activeTasks: [{ subtopology: 0, partition: 3 }],
      standbyTasks: [{ subtopology: 1, partition: 1 }],
      partitionsByEndpoint: new Map([['localhost:8080', [{ topic: 't', partition: 3 }]]]),
    })
    for (let n = 0; n < s.length; n++) expectStreamsError(() => decodeSubscriptionInfo(s.subarray(0, n)))
    for (let n = 0; n < a.length; n++) expectStreamsError(() => decodeAssignmentInfo(a.subarray(0, n)))
    expectStreamsError(() => decodeSubscriptionInfo(null))
    expectStreamsError(() => decodeAssignmentInfo(null))
    expectStreamsError(() => decodeSubscriptionInfo(Buffer.from([0])))
    // A count far beyond the bytes left is refused before anything is allocated.
    expectStreamsError(() => decodeAssignmentInfo(Buffer.from([1, 0xff, 0xff, 0xff, 0xff])))
    // A negative partition.
    expectStreamsError(() => decodeAssignmentInfo(Buffer.from([1, 0, 0, 0, 1, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff])))
    // A NaN lag.
    const nan = Buffer.from(s)
    nan.writeDoubleBE(Number.NaN, nan.length - 8)
    expectStreamsError(() => decodeSubscriptionInfo(nan))
  })

  it('refuses to encode values the layout cannot hold', () => {
    const base = { instanceId: 'i', endpoint: '', activeTasks: [], standbyTasks: [] }
    expectStreamsError(() => encodeSubscriptionInfo({ ...base, activeTasks: [{ subtopology: -1, partition: 0 }] }))
    expectStreamsError(() =>
      encodeSubscriptionInfo({ ...base, standbyTasks: [{ task: { subtopology: 0, partition: 0 }, lag: -1 }] }),
    )
    expectStreamsError(() => encodeSubscriptionInfo({ ...base, endpoint: 'x'.repeat(70_000) }))
  })

  it('never throws anything but a StreamsError on random bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        for (const decode of [decodeSubscriptionInfo, decodeAssignmentInfo]) {
          try {
            decode(Buffer.from(bytes))
          } catch (err) {
            expect(err).toBeInstanceOf(StreamsError)
          }
        }
      }),
    )
  })
})
