import { describe, expect, it } from 'vitest'
import { isConnectError } from '../errors.js'
import { parseErrorHandlingConfig } from './error-handling-config.js'

function fieldOf(f: () => unknown): unknown {
  try {
    f()
  } catch (e) {
    if (isConnectError(e, 'CONFIG')) return e.details.field
    throw e
  }
  return undefined
}

describe('parseErrorHandlingConfig', () => {
  it("has Kafka Connect's defaults", () => {
    expect(parseErrorHandlingConfig({}, 'sink')).toEqual({
      tolerance: 'none',
      retryTimeoutMs: 0,
      retryMaxDelayMs: 60000,
      logEnabled: false,
      logIncludeMessages: false,
      deadLetterTopic: undefined,
      deadLetterReplicationFactor: 3,
      deadLetterContextHeaders: false,
    })
  })

  it('reads every field', () => {
    const c = parseErrorHandlingConfig(
      {
        'errors.tolerance': 'all',
        'errors.retry.timeout': '-1',
        'errors.retry.delay.max.ms': '5000',
        'errors.log.enable': 'true',
        'errors.log.include.messages': 'true',
        'errors.deadletterqueue.topic.name': 'dlq',
        'errors.deadletterqueue.topic.replication.factor': '1',
        'errors.deadletterqueue.context.headers.enable': 'true',
      },
      'sink',
      ['orders'],
    )
    expect(c).toMatchObject({
      tolerance: 'all',
      retryTimeoutMs: -1,
      deadLetterTopic: 'dlq',
      deadLetterContextHeaders: true,
    })
  })

  it('ignores the dead-letter fields of a source connector', () => {
    expect(
      parseErrorHandlingConfig({ 'errors.deadletterqueue.topic.name': 'dlq' }, 'source').deadLetterTopic,
    ).toBeUndefined()
  })

  it('names the bad field', () => {
    expect(fieldOf(() => parseErrorHandlingConfig({ 'errors.tolerance': 'some' }, 'sink'))).toBe('errors.tolerance')
    expect(fieldOf(() => parseErrorHandlingConfig({ 'errors.retry.timeout': '-2' }, 'sink'))).toBe(
      'errors.retry.timeout',
    )
    expect(fieldOf(() => parseErrorHandlingConfig({ 'errors.retry.delay.max.ms': 'x' }, 'source'))).toBe(
      'errors.retry.delay.max.ms',
    )
    expect(
      fieldOf(() => parseErrorHandlingConfig({ 'errors.deadletterqueue.topic.replication.factor': '0' }, 'sink')),
    ).toBe('errors.deadletterqueue.topic.replication.factor')
    expect(
      fieldOf(() => parseErrorHandlingConfig({ 'errors.deadletterqueue.topic.name': 'orders' }, 'sink', ['orders'])),
    ).toBe('errors.deadletterqueue.topic.name')
  })
})
