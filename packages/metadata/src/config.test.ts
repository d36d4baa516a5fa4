import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { parseMetadataConfig } from './config.js'

describe('metadata process config', () => {
  it('applies defaults and reads flags and env', () => {
    const r = parseMetadataConfig(['--data-dir', '/var/sluice', '--port=0'], { SLUICE_DEFAULT_NUM_PARTITIONS: '6', SLUICE_PORT: '7' })
    expect(r).toEqual({
      ok: true,
      config: {
        host: '127.0.0.1', port: 0, dataDir: '/var/sluice', defaultNumPartitions: 6, defaultReplicationFactor: 1,
        brokerSessionTimeoutMs: 9000, maxPartitionsPerTopic: 10_000, logLevel: 'info',
      },
    })
  })

  it('reads a JSON config file, with env and flags winning', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sluice-config-'))
    onTestFinished(async () => { await rm(dir, { recursive: true, force: true }) })
    const file = join(dir, 'metadata.json')
    await writeFile(file, JSON.stringify({ dataDir: '/from/file', port: 1234, logLevel: 'debug' }))
    const r = parseMetadataConfig(['--config', file, '--log-level', 'warn'], { SLUICE_PORT: '4321' })
    expect(r.ok && [r.config.dataDir, r.config.port, r.config.logLevel]).toEqual(['/from/file', 4321, 'warn'])
  })

  it('lists every problem at once', () => {
    const r = parseMetadataConfig(['--port', '70000', '--bogus', 'x', '--broker-session-timeout-ms', 'soon', '--log-level', 'loud'], {})
    expect(r.ok).toBe(false)
    const problems = r.ok ? [] : r.problems
    expect(problems).toHaveLength(5)
    expect(problems.join('\n')).toMatch(/unknown flag --bogus/)
    for (const key of ['port', 'dataDir', 'brokerSessionTimeoutMs', 'logLevel']) {
      expect(problems.some((p) => p.startsWith(`${key}:`)), key).toBe(true)
    }
  })
})
