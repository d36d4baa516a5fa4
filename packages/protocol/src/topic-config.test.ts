import { describe, expect, it } from 'vitest'
import {
  defaultTopicConfig,
  effectiveTopicConfig,
  TOPIC_CONFIG_NAMES,
  validateTopicConfigOverrides,
} from './topic-config.js'
import { SluiceError } from './errors.js'

describe('topic configs', () => {
  it('min.cleanable.dirty.ratio is a decimal in [0, 1], default 0.5', () => {
    expect(defaultTopicConfig()['min.cleanable.dirty.ratio']).toBe(0.5)
    expect(effectiveTopicConfig({ 'min.cleanable.dirty.ratio': '0.25' })['min.cleanable.dirty.ratio']).toBe(0.25)
    expect(effectiveTopicConfig({ 'min.cleanable.dirty.ratio': '1' })['min.cleanable.dirty.ratio']).toBe(1)
    for (const bad of ['1.5', '-0.1', 'half', '', '0.5x']) {
      expect(() => validateTopicConfigOverrides({ 'min.cleanable.dirty.ratio': bad }), bad).toThrow(SluiceError)
    }
  })

  it('min.compaction.lag.ms is a non-negative integer, default 0', () => {
    expect(defaultTopicConfig()['min.compaction.lag.ms']).toBe(0)
    expect(effectiveTopicConfig({ 'min.compaction.lag.ms': '60000' })['min.compaction.lag.ms']).toBe(60_000)
    expect(() => validateTopicConfigOverrides({ 'min.compaction.lag.ms': '-1' })).toThrow(/outside/)
  })

  it('every config has a default that its own parser accepts', () => {
    const defaults = defaultTopicConfig() as unknown as Record<string, unknown>
    for (const name of TOPIC_CONFIG_NAMES) {
      expect(validateTopicConfigOverrides({ [name]: String(defaults[name]) }), name).toEqual({
        [name]: String(defaults[name]),
      })
    }
  })
})
