import { afterEach, describe, expect, it } from 'vitest'
import { SluiceError, kafka, type wire } from '@sluice/protocol'
import { startTinyKafkaBroker, type TinyKafkaBroker, type TinyKafkaRequest } from '../__fixtures__/tiny-kafka-broker.js'
import { kafkaProduceMapping } from '../producer/kafka-produce-mapping.js'
import { KafkaDataChannel } from './kafka-data-channel.js'

const brokers: TinyKafkaBroker[] = []
const channels: Array<{ close(): void }> = []
afterEach(async () => {
  for (const c of channels.splice(0)) c.close()
  for (const b of brokers.splice(0)) await b.stop()
})

async function broker(onRequest: (req: TinyKafkaRequest) => void): Promise<TinyKafkaBroker> {
  const b = await startTinyKafkaBroker(onRequest)
  brokers.push(b)
  return b
}

function channel(
  port: number,
  maxInFlight = 5,
): KafkaDataChannel<
  wire.ProduceRequest,
  wire.ProduceResponse__Output,
  kafka.ProduceRequest,
  kafka.ProduceResponse,
  kafka.ProduceRequestInput,
  kafka.ProduceResponseInput
> {
  const c = new KafkaDataChannel(kafkaProduceMapping, {
    host: '127.0.0.1',
    port,
    clientId: 'channel-test',
    maxInFlight,
    name: 'produce to broker 1',
    connectTimeoutMs: 5_000,
  })
  channels.push(c)
  return c
}

const produce = (partition: number): wire.ProduceRequest => ({
  acks: -1,
  timeout_ms: 1000,
  topics: [{ topic: 't', partitions: [{ partition, records: Buffer.from([1, 2, 3]) }] }],
})

/** Answers a Produce request: offset 10 * partition for every partition it names. */
function answerOk(req: TinyKafkaRequest): void {
  const body = req.body as kafka.ProduceRequest
  req.answer({
    responses: body.topicData.map((t) => ({
      name: t.name,
      partitionResponses: t.partitionData.map((p) => ({
        index: p.index,
        errorCode: 0,
        baseOffset: BigInt(10 * p.index),
      })),
    })),
  } satisfies kafka.ProduceResponseInput)
}

async function rejection(p: Promise<unknown>): Promise<SluiceError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(SluiceError)
  return err as SluiceError
}

/** Waits (with a deadline) until `check` holds. */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

describe('KafkaDataChannel', () => {
  it('sends Produce v9 with the client id and maps the answer back to the wire shape', async () => {
    const b = await broker(answerOk)
    const res = await channel(b.port).request(produce(3), { timeoutMs: 5_000 })
    expect(b.requests).toHaveLength(1)
    expect(b.requests[0]).toMatchObject({ apiKey: kafka.ProduceApi.apiKey, apiVersion: 9, clientId: 'channel-test' })
    expect(res?.topics[0]?.partitions[0]).toMatchObject({ partition: 3, error_code: 0, base_offset: '30' })
  })

  it('keeps several requests in flight on one connection, and no more than maxInFlight', async () => {
    const held: TinyKafkaRequest[] = []
    const b = await broker((req) => held.push(req))
    const c = channel(b.port, 2)
    const answers = [0, 1, 2].map((p) => c.request(produce(p), { timeoutMs: 5_000 }))
    await until(() => held.length === 2, 'two requests at the broker')
    expect(c.hasFreeSlot).toBe(false)
    expect(c.inFlight).toBe(2)
    answerOk(held[0]!)
    await until(() => held.length === 3, 'the third request, once a slot was free')
    answerOk(held[1]!)
    answerOk(held[2]!)
    const offsets = (await Promise.all(answers)).map((r) => r?.topics[0]?.partitions[0]?.base_offset)
    expect(offsets).toEqual(['0', '10', '20'])
    expect(b.connections).toBe(1)
    expect(c.hasFreeSlot).toBe(true)
  })

  it('fails every request in flight retriably when the connection breaks, and reconnects for the next', async () => {
    const held: TinyKafkaRequest[] = []
    const b = await broker((req) => {
      if (req.connection === 0) held.push(req)
      else answerOk(req)
    })
    const c = channel(b.port)
    const first = c.request(produce(0), { timeoutMs: 5_000 })
    const second = c.request(produce(1), { timeoutMs: 5_000 })
    await until(() => held.length === 2, 'two requests at the broker')
    held[0]!.breakConnection()
    for (const err of [await rejection(first), await rejection(second)]) {
      expect(err.code).toBe('NETWORK_EXCEPTION')
      expect(err.retriable).toBe(true)
    }
    const again = await c.request(produce(2), { timeoutMs: 5_000 })
    expect(again?.topics[0]?.partitions[0]?.base_offset).toBe('20')
    expect(b.connections).toBe(2)
  })

  it('times a request out retriably, failing the others on the connection with it', async () => {
    const b = await broker(() => {})
    const c = channel(b.port)
    const late = c.request(produce(0), { timeoutMs: 5_000 })
    await until(() => b.requests.length === 1, 'the first request at the broker')
    const timed = await rejection(c.request(produce(1), { timeoutMs: 50 }))
    expect(timed.code).toBe('REQUEST_TIMED_OUT')
    expect(timed.retriable).toBe(true)
    const other = await rejection(late)
    expect(other.code).toBe('NETWORK_EXCEPTION')
    expect(other.retriable).toBe(true)
  })

  it('fails retriably when nothing listens at the Kafka endpoint', async () => {
    const b = await broker(() => {})
    const port = b.port
    await b.stop()
    brokers.length = 0
    const err = await rejection(channel(port).request(produce(0), { timeoutMs: 1_000 }))
    expect(err.code).toBe('NETWORK_EXCEPTION')
    expect(err.retriable).toBe(true)
  })

  it('fails what is in flight, and everything later, with CLIENT_CLOSED once closed', async () => {
    const b = await broker(() => {})
    const c = channel(b.port)
    const pending = c.request(produce(0), { timeoutMs: 5_000 })
    await until(() => b.requests.length === 1, 'the request at the broker')
    c.close()
    expect((await rejection(pending)).code).toBe('CLIENT_CLOSED')
    expect((await rejection(c.request(produce(1), { timeoutMs: 5_000 }))).code).toBe('CLIENT_CLOSED')
  })

  it("fails what is in flight with close()'s reason when it gives one (a replaced channel: retriable)", async () => {
    const b = await broker(() => {})
    const c = channel(b.port)
    const pending = c.request(produce(0), { timeoutMs: 5_000 })
    await until(() => b.requests.length === 1, 'the request at the broker')
    c.close(new SluiceError('NETWORK_EXCEPTION', 'moved'))
    const err = await rejection(pending)
    expect(err.code).toBe('NETWORK_EXCEPTION')
    expect(err.retriable).toBe(true)
    expect((await rejection(c.request(produce(1), { timeoutMs: 5_000 }))).code).toBe('CLIENT_CLOSED')
  })

  it('refuses requests the broker never answers (acks=0), sending nothing', async () => {
    const b = await broker(answerOk)
    const err = await rejection(channel(b.port).request(produce(0), { timeoutMs: 5_000, expectResponse: false }))
    expect(err.code).toBe('INVALID_ARGUMENT')
    expect(b.connections).toBe(0)
  })
})
