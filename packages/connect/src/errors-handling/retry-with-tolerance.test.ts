import { SluiceError, type Logger } from '@sluice/client'
import { describe, expect, it } from 'vitest'
import { ConnectError } from '../errors.js'
import type { ConsumedRecord, DeadLetterRecord, ErrorStage } from './error-context.js'
import { parseErrorHandlingConfig } from './error-handling-config.js'
import { retriableError } from './retriable.js'
import { RetryWithToleranceOperator } from './retry-with-tolerance.js'

interface Logged {
  level: string
  obj: Record<string, unknown>
  msg?: string
}

function harness(config: Record<string, string>, opts: { dlqFails?: boolean } = {}) {
  let now = 1_000_000
  const sleeps: number[] = []
  const logged: Logged[] = []
  const dead: { record: DeadLetterRecord; stage: ErrorStage }[] = []
  const log =
    (level: string) =>
    (obj: Record<string, unknown>, msg?: string): void => {
      logged.push({ level, obj, ...(msg === undefined ? {} : { msg }) })
    }
  const logger: Logger = {
    debug: log('debug'),
    info: log('info'),
    warn: log('warn'),
    error: log('error'),
    child: () => logger,
  }
  const op = new RetryWithToleranceOperator(parseErrorHandlingConfig(config, 'sink', ['orders']), {
    connector: 'pg-sink',
    taskId: 3,
    logger,
    now: () => now,
    sleep: async (ms) => {
      sleeps.push(ms)
      now += ms
    },
    deadLetter: async (record, _error, stage) => {
      if (opts.dlqFails) throw new Error('broker away')
      dead.push({ record, stage })
    },
  })
  return { op, sleeps, logged, dead, advance: (ms: number) => (now += ms) }
}

const consumed: ConsumedRecord = {
  topic: 'orders',
  partition: 1,
  offset: 99n,
  timestamp: 1_700_000_000_000,
  key: Buffer.from('k1'),
  value: Buffer.from('{not json'),
  headers: [{ key: 'trace', value: Buffer.from('t-1') }],
}

const badBytes = () => {
  throw new ConnectError('CONVERTER', 'the bytes are not JSON')
}

async function rejection(p: Promise<unknown>): Promise<ConnectError> {
  try {
    await p
  } catch (e) {
    if (e instanceof ConnectError) return e
    throw e
  }
  throw new Error('expected a rejection')
}

describe('RetryWithToleranceOperator', () => {
  it('passes a successful operation through', async () => {
    const { op } = harness({})
    expect(await op.execute('TRANSFORMATION', () => 42)).toEqual({ ok: true, value: 42 })
    expect(op.metrics().failures).toBe(0)
  })

  it('errors.tolerance=none: a converter failure fails the task, with the failure as cause', async () => {
    const { op, dead } = harness({ 'errors.deadletterqueue.topic.name': 'dlq' })
    const e = await rejection(op.execute('VALUE_CONVERTER', badBytes, { record: consumed }))
    expect(e.code).toBe('TASK')
    expect(e.message).toMatch(/VALUE_CONVERTER failed, tolerance exceeded/)
    expect((e.cause as ConnectError).code).toBe('CONVERTER')
    expect(e.details).toMatchObject({ connector: 'pg-sink', task: 3, topic: 'orders', partition: 1, offset: '99' })
    expect(dead).toEqual([])
    expect(op.metrics()).toMatchObject({ errors: 1, skipped: 0 })
  })

  it('errors.tolerance=all: skips the record and dead-letters its bytes with the context headers', async () => {
    const { op, dead } = harness({
      'errors.tolerance': 'all',
      'errors.deadletterqueue.topic.name': 'orders-dlq',
      'errors.deadletterqueue.context.headers.enable': 'true',
    })
    const r = await op.execute('VALUE_CONVERTER', badBytes, {
      record: consumed,
      className: 'org.apache.kafka.connect.json.JsonConverter',
    })
    expect(r.ok).toBe(false)
    expect(dead).toHaveLength(1)
    const { record, stage } = dead[0]!
    expect(stage).toBe('VALUE_CONVERTER')
    expect(record).toMatchObject({
      topic: 'orders-dlq',
      key: consumed.key,
      value: consumed.value,
      timestamp: consumed.timestamp,
    })
    const headers = Object.fromEntries(record.headers.map((h) => [h.key, h.value?.toString()]))
    expect(headers).toMatchObject({
      trace: 't-1',
      '__connect.errors.topic': 'orders',
      '__connect.errors.partition': '1',
      '__connect.errors.offset': '99',
      '__connect.errors.connector.name': 'pg-sink',
      '__connect.errors.task.id': '3',
      '__connect.errors.stage': 'VALUE_CONVERTER',
      '__connect.errors.class.name': 'org.apache.kafka.connect.json.JsonConverter',
      '__connect.errors.exception.class.name': 'ConnectError(CONVERTER)',
      '__connect.errors.exception.message': 'the bytes are not JSON',
    })
    expect(headers['__connect.errors.exception.stacktrace']).toMatch(/ConnectError/)
    expect(op.metrics()).toMatchObject({ failures: 1, errors: 1, skipped: 1, deadLettered: 1, retries: 0 })
  })

  it('without context headers the dead-lettered record keeps only its own headers', async () => {
    const { op, dead } = harness({ 'errors.tolerance': 'all', 'errors.deadletterqueue.topic.name': 'dlq' })
    await op.execute('TRANSFORMATION', badBytes, { record: consumed })
    expect(dead[0]!.record.headers).toEqual(consumed.headers)
  })

  it('a failed dead-letter write fails the task (the record is not lost)', async () => {
    const { op } = harness(
      { 'errors.tolerance': 'all', 'errors.deadletterqueue.topic.name': 'dlq' },
      { dlqFails: true },
    )
    const e = await rejection(op.execute('VALUE_CONVERTER', badBytes, { record: consumed }))
    expect(e.code).toBe('RUNTIME')
    expect(e.message).toMatch(/dead-letter topic dlq: broker away/)
    expect(op.metrics()).toMatchObject({ deadLetterFailures: 1, deadLettered: 0 })
  })

  it('a put failure is never skipped, even with errors.tolerance=all', async () => {
    const { op } = harness({ 'errors.tolerance': 'all' })
    const e = await rejection(
      op.execute('TASK_PUT', () => {
        throw new Error('constraint violated')
      }),
    )
    expect(e.message).toMatch(/TASK_PUT failed, a failure the error tolerance does not cover: constraint violated/)
  })

  it('retries retriable failures with doubling backoff capped by errors.retry.delay.max.ms, until it works', async () => {
    const { op, sleeps } = harness({ 'errors.retry.timeout': '60000', 'errors.retry.delay.max.ms': '2000' })
    let calls = 0
    const r = await op.execute('TASK_PUT', () => {
      if (++calls < 6) throw retriableError('TASK', 'database restarting')
      return 'written'
    })
    expect(r).toEqual({ ok: true, value: 'written' })
    expect(sleeps).toEqual([300, 600, 1200, 2000, 2000])
    expect(op.metrics()).toMatchObject({ failures: 5, retries: 5, errors: 0 })
  })

  it('stops retrying at errors.retry.timeout: the last wait ends at the deadline, then one more attempt', async () => {
    const { op, sleeps } = harness({ 'errors.retry.timeout': '1000', 'errors.tolerance': 'all' })
    let calls = 0
    const r = await op.execute('VALUE_CONVERTER', () => {
      calls++
      throw new SluiceError('REQUEST_TIMED_OUT', 'slow')
    })
    expect(r.ok).toBe(false)
    expect(sleeps).toEqual([300, 600, 100])
    expect(calls).toBe(4)
  })

  it('does not retry non-retriable failures, nor any when errors.retry.timeout=0', async () => {
    const a = harness({ 'errors.retry.timeout': '60000', 'errors.tolerance': 'all' })
    await a.op.execute('TRANSFORMATION', badBytes)
    expect(a.sleeps).toEqual([])
    const b = harness({ 'errors.tolerance': 'all' })
    await b.op.execute('TRANSFORMATION', () => {
      throw retriableError('TRANSFORM', 'x')
    })
    expect(b.sleeps).toEqual([])
  })

  it('errors.retry.timeout=-1 retries until stop(), which fails the operation', async () => {
    const { op, sleeps } = harness({ 'errors.retry.timeout': '-1', 'errors.retry.delay.max.ms': '1000' })
    let calls = 0
    const e = await rejection(
      op.execute('TASK_PUT', () => {
        if (++calls === 20) op.stop()
        throw retriableError('TASK', 'down')
      }),
    )
    expect(e.message).toMatch(/stopped while retrying TASK_PUT/)
    expect(sleeps).toHaveLength(19)
    expect(sleeps.at(-1)).toBe(1000)
  })

  it('logs failures when errors.log.enable, with key and value only when include.messages', async () => {
    const plain = harness({ 'errors.tolerance': 'all', 'errors.log.enable': 'true' })
    await plain.op.execute('VALUE_CONVERTER', badBytes, { record: consumed })
    const entry = plain.logged.find((l) => l.level === 'error')!
    expect(entry.obj).toMatchObject({
      connector: 'pg-sink',
      task: 3,
      stage: 'VALUE_CONVERTER',
      topic: 'orders',
      offset: '99',
    })
    expect(entry.obj.value).toBeUndefined()
    const full = harness({
      'errors.tolerance': 'all',
      'errors.log.enable': 'true',
      'errors.log.include.messages': 'true',
    })
    await full.op.execute('VALUE_CONVERTER', badBytes, { record: consumed })
    expect(full.logged.find((l) => l.level === 'error')!.obj).toMatchObject({ key: 'k1', value: '{not json' })
    const silent = harness({ 'errors.tolerance': 'all' })
    await silent.op.execute('VALUE_CONVERTER', badBytes, { record: consumed })
    expect(silent.logged.filter((l) => l.level === 'error')).toEqual([])
  })

  it('report(): a sink task’s errant record is dead-lettered with tolerance all, fails the task with none', async () => {
    const all = harness({ 'errors.tolerance': 'all', 'errors.deadletterqueue.topic.name': 'dlq' })
    await all.op.report(consumed, new Error('row too wide'))
    expect(all.dead[0]!.stage).toBe('TASK_PUT')
    const none = harness({})
    expect((await rejection(none.op.report(consumed, new Error('row too wide')))).code).toBe('TASK')
  })

  it('names a failing transform’s class from its error', async () => {
    const { op, dead } = harness({
      'errors.tolerance': 'all',
      'errors.deadletterqueue.topic.name': 'dlq',
      'errors.deadletterqueue.context.headers.enable': 'true',
    })
    await op.execute(
      'TRANSFORMATION',
      () => {
        throw new ConnectError('TRANSFORM', 'bad', { details: { className: 'InsertField$Value' } })
      },
      { record: consumed },
    )
    const h = dead[0]!.record.headers.find((x) => x.key === '__connect.errors.class.name')
    expect(h?.value?.toString()).toBe('InsertField$Value')
  })

  it('refuses a dead-letter topic without a dead-letter sink', () => {
    const config = parseErrorHandlingConfig({ 'errors.deadletterqueue.topic.name': 'dlq' }, 'sink')
    const logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => logger } as Logger
    expect(() => new RetryWithToleranceOperator(config, { connector: 'c', taskId: 0, logger })).toThrow(
      /no dead-letter sink/,
    )
  })
})
