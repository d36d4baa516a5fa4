import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { parseMetadataConfig } from './config.js'

describe('metadata process config', () => {
  it('applies defaults and reads flags and env', () => {
    const r = parseMetadataConfig(['--data-dir', '/var/sluice', '--port=0'], {
      SLUICE_DEFAULT_NUM_PARTITIONS: '6',
      SLUICE_PORT: '7',
    })
    expect(r).toEqual({
      ok: true,
      config: {
        host: '127.0.0.1',
        port: 0,
        dataDir: '/var/sluice',
        defaultNumPartitions: 6,
        defaultReplicationFactor: 1,
        brokerSessionTimeoutMs: 9000,
        maxPartitionsPerTopic: 10_000,
        logLevel: 'info',
        store: 'embedded',
        zkChroot: '/sluice',
        zkSessionTimeoutMs: 6000,
        controllerId: 3000,
        groupMinSessionTimeoutMs: 6000,
        groupMaxSessionTimeoutMs: 1_800_000,
        groupInitialRebalanceDelayMs: 3000,
        offsetsTopicNumPartitions: 10,
        offsetsTopicReplicationFactor: 3,
        offsetsRetentionMinutes: 10_080,
      },
    })
  })

  it('reads the group coordinator settings from flags and env', () => {
    const r = parseMetadataConfig(
      ['--data-dir', '/d', '--group-initial-rebalance-delay-ms', '0', '--offsets-topic-num-partitions', '4'],
      { SLUICE_GROUP_MIN_SESSION_TIMEOUT_MS: '1000' },
    )
    expect(r.ok && r.config).toMatchObject({
      groupInitialRebalanceDelayMs: 0,
      offsetsTopicNumPartitions: 4,
      groupMinSessionTimeoutMs: 1000,
    })
    const bad = parseMetadataConfig(['--data-dir', '/d', '--offsets-topic-num-partitions', '0'], {})
    expect(bad.ok).toBe(false)
    expect(!bad.ok && bad.problems.join('\n')).toContain('offsetsTopicNumPartitions')
  })

  it('reads a JSON config file, with env and flags winning', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sluice-config-'))
    onTestFinished(async () => {
      await rm(dir, { recursive: true, force: true })
    })
    const file = join(dir, 'metadata.json')
    await writeFile(file, JSON.stringify({ dataDir: '/from/file', port: 1234, logLevel: 'debug' }))
    const r = parseMetadataConfig(['--config', file, '--log-level', 'warn'], { SLUICE_PORT: '4321' })
    expect(r.ok && [r.config.dataDir, r.config.port, r.config.logLevel]).toEqual(['/from/file', 4321, 'warn'])
  })

  it('lists every problem at once', () => {
    const r = parseMetadataConfig(
      ['--port', '70000', '--bogus', 'x', '--broker-session-timeout-ms', 'soon', '--log-level', 'loud'],
      {},
    )
    expect(r.ok).toBe(false)
    const problems = r.ok ? [] : r.problems
    expect(problems).toHaveLength(5)
    expect(problems.join('\n')).toMatch(/unknown flag --bogus/)
    for (const key of ['port', 'dataDir', 'brokerSessionTimeoutMs', 'logLevel']) {
      expect(
        problems.some((p) => p.startsWith(`${key}:`)),
        key,
      ).toBe(true)
    }
  })

  it('reads the zookeeper store settings, without requiring dataDir', () => {
    const r = parseMetadataConfig(
      ['--store', 'zookeeper', '--zk-connect', 'zk1:2181,zk2:2181', '--zk-chroot', '/sluice/prod'],
      { SLUICE_ZK_SESSION_TIMEOUT_MS: '8000' },
    )
    expect(
      r.ok && [r.config.store, r.config.zkConnect, r.config.zkChroot, r.config.zkSessionTimeoutMs, r.config.dataDir],
    ).toEqual(['zookeeper', 'zk1:2181,zk2:2181', '/sluice/prod', 8000, undefined])
  })

  it('requires zkConnect for the zookeeper store and lists it with the other problems', () => {
    const r = parseMetadataConfig(
      ['--store', 'zookeeper', '--zk-session-timeout-ms', '1000', '--zk-chroot', 'relative'],
      {},
    )
    const problems = r.ok ? [] : r.problems
    expect(problems).toHaveLength(3)
    for (const key of ['zkConnect', 'zkSessionTimeoutMs', 'zkChroot']) {
      expect(
        problems.some((p) => p.startsWith(`${key}:`)),
        key,
      ).toBe(true)
    }
    expect(problems.some((p) => p.startsWith('dataDir:'))).toBe(false)
  })

  it('rejects a chroot inside the connect string and an unknown store', () => {
    const r = parseMetadataConfig(['--store', 'zookeeper', '--zk-connect', 'zk1:2181/sluice'], {})
    expect(r.ok ? [] : r.problems).toEqual([expect.stringMatching(/^zkConnect: .*without a chroot/)])
    const bad = parseMetadataConfig(['--store', 'etcd', '--data-dir', '/d'], {})
    expect(bad.ok ? [] : bad.problems).toEqual([expect.stringMatching(/^store:/)])
  })
})
