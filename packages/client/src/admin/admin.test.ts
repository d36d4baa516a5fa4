import { SluiceError } from '@sluice/protocol'
import { describe, expect, it } from 'vitest'
import { throwItemErrors } from './admin.js'

describe('throwItemErrors', () => {
  it('does nothing when every item succeeded', () => {
    expect(() => {
      throwItemErrors('op', [{ name: 'a', error_code: 0, error_message: '' }])
    }).not.toThrow()
  })

  it('throws one SluiceError with the first failure code, listing every failed item', () => {
    let err: SluiceError | undefined
    try {
      throwItemErrors('createTopics', [
        { name: 'ok', error_code: 0, error_message: '' },
        { name: 'dup', error_code: 36, error_message: 'exists' },
        { name: 'bad name', error_code: 17, error_message: '' },
      ])
    } catch (e) {
      err = e as SluiceError
    }
    expect(err).toBeInstanceOf(SluiceError)
    expect(err!.code).toBe('TOPIC_ALREADY_EXISTS')
    expect(err!.message).toContain('2 of 3 topic(s)')
    expect(err!.details.errors).toEqual([
      { topic: 'dup', code: 'TOPIC_ALREADY_EXISTS', message: 'exists' },
      { topic: 'bad name', code: 'INVALID_TOPIC_EXCEPTION', message: expect.any(String) as string },
    ])
    expect(err!.details.succeeded).toEqual(['ok'])
  })
})
