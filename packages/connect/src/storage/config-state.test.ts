import { describe, expect, it } from 'vitest'
import { CREATE_CLAIM_MS, ConfigState, configKeys } from './config-state.js'

function record(state: ConfigState, key: string, value: unknown): void {
  state.apply(Buffer.from(key), value === null ? null : Buffer.from(JSON.stringify(value)))
}

describe('ConfigState create claims', () => {
  it('lets the first claim on an absent name hold it, and the connector record release it', () => {
    const s = new ConfigState()
    record(s, configKeys.createClaim('a'), { token: 't1', at: 1000 })
    record(s, configKeys.createClaim('a'), { token: 't2', at: 1001 })
    expect(s.claimOf('a')).toBe('t1')
    record(s, configKeys.connector('a'), { properties: { 'connector.class': 'X' } })
    expect(s.claimOf('a')).toBeUndefined()
    // A claim on a name that exists holds nothing.
    record(s, configKeys.createClaim('a'), { token: 't3', at: 1002 })
    expect(s.claimOf('a')).toBeUndefined()
    // Deleted, the name can be claimed again.
    record(s, configKeys.connector('a'), null)
    record(s, configKeys.createClaim('a'), { token: 't4', at: 1003 })
    expect(s.claimOf('a')).toBe('t4')
  })

  it('gives a name to a later claim once the holder let its claim go stale', () => {
    const s = new ConfigState()
    record(s, configKeys.createClaim('b'), { token: 'dead', at: 5000 })
    record(s, configKeys.createClaim('b'), { token: 'early', at: 5000 + CREATE_CLAIM_MS })
    expect(s.claimOf('b')).toBe('dead')
    record(s, configKeys.createClaim('b'), { token: 'late', at: 5001 + CREATE_CLAIM_MS })
    expect(s.claimOf('b')).toBe('late')
    expect(s.names()).toEqual([])
  })
})
