import { describe, expect, it } from 'vitest'
import { loadBrokerConfig } from './config.js'

describe('loadBrokerConfig', () => {
  it('merges env and flags (flags win) and coerces numbers and endpoint lists', () => {
    const r = loadBrokerConfig(
      ['--broker-id', '3', '--port=0', '--metadata-endpoints', 'a:1, b:2'],
      { SLUICE_BROKER_ID: '9', SLUICE_DATA_DIR: '/tmp/x', SLUICE_HEARTBEAT_INTERVAL_MS: '500' })
    expect(r).toEqual({
      ok: true,
      config: {
        brokerId: 3, host: '0.0.0.0', port: 0, dataDir: '/tmp/x', metadataEndpoints: ['a:1', 'b:2'],
        sessionTimeoutMs: 9000, heartbeatIntervalMs: 500, logLevel: 'info',
      },
    })
  })

  it('lists every problem at once', () => {
    const r = loadBrokerConfig(['--broker-id', '-1', '--port', 'x', '--bogus', '1'], {})
    expect(r.ok).toBe(false)
    if (r.ok) return
    const text = r.problems.join('\n')
    expect(text).toContain('unknown flag --bogus')
    expect(text).toContain('brokerId')
    expect(text).toContain('port')
    expect(text).toContain('dataDir')
    expect(text).toContain('metadataEndpoints')
  })

  it('rejects a heartbeat interval not below the session timeout', () => {
    const r = loadBrokerConfig(['--broker-id', '1', '--data-dir', '/d', '--metadata-endpoints', 'm:1',
      '--heartbeat-interval-ms', '5000', '--session-timeout-ms', '4000'], {})
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.problems.join('\n')).toContain('heartbeatIntervalMs must be smaller')
  })
})
