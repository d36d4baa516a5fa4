import { describe, expect, it } from 'vitest'
import { parseMetadataConfig } from '../config.js'

describe('metadata admin-port config', () => {
  it('reads --admin-port / SLUICE_ADMIN_PORT and --admin-host; absent means no admin server', () => {
    const none = parseMetadataConfig(['--data-dir', '/tmp/m'], {})
    expect(none.ok && none.config.adminPort).toBeUndefined()
    const flag = parseMetadataConfig(['--data-dir', '/tmp/m', '--admin-port', '0', '--admin-host', '0.0.0.0'], {})
    expect(flag.ok && [flag.config.adminPort, flag.config.adminHost]).toEqual([0, '0.0.0.0'])
    const env = parseMetadataConfig(['--data-dir', '/tmp/m'], { SLUICE_ADMIN_PORT: '9641' })
    expect(env.ok && env.config.adminPort).toBe(9641)
    expect(parseMetadataConfig(['--data-dir', '/tmp/m', '--admin-port', 'x'], {}).ok).toBe(false)
  })
})
