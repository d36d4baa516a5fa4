import { describe, expect, it } from 'vitest'
import { loadBrokerConfig } from '../config.js'

const base = ['--broker-id', '1', '--data-dir', '/tmp/x', '--metadata-endpoints', '127.0.0.1:9091']

describe('broker admin-port config', () => {
  it('has no admin server unless --admin-port or SLUICE_ADMIN_PORT is given', () => {
    const none = loadBrokerConfig(base, {})
    expect(none.ok && none.config.adminPort).toBeUndefined()
    const flag = loadBrokerConfig([...base, '--admin-port', '0', '--admin-host', '127.0.0.2'], {})
    expect(flag.ok && [flag.config.adminPort, flag.config.adminHost]).toEqual([0, '127.0.0.2'])
    const env = loadBrokerConfig(base, { SLUICE_ADMIN_PORT: '9644' })
    expect(env.ok && env.config.adminPort).toBe(9644)
    const bad = loadBrokerConfig([...base, '--admin-port', '70000'], {})
    expect(bad.ok).toBe(false)
    expect(!bad.ok && bad.problems.join('\n')).toMatch(/adminPort/)
  })
})
