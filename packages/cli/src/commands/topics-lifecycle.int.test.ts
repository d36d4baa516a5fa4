import { connect } from '@sluice/client'
import { startCluster } from '@sluice/testkit'
import { describe, expect, it, onTestFinished } from 'vitest'
import { handlers } from '../handlers.js'
import { runCli, type CommandHandlers } from '../program.js'
import { testIo } from '../test-io.js'

async function cli(bootstrap: string[], argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = testIo()
  const code = await runCli(['--bootstrap', bootstrap.join(','), ...argv], io, handlers)
  return { code, out: io.out(), err: io.err() }
}

describe('sluice topics alter / describe --configs / delete-records', () => {
  it('parses the new subcommands', async () => {
    const calls: unknown[][] = []
    const rec =
      (name: string) =>
      async (...args: unknown[]) => {
        calls.push([name, ...args.slice(1)])
        return 0
      }
    const fake = {
      ...handlers,
      topicsAlter: rec('alter'),
      topicsDeleteRecords: rec('deleteRecords'),
      topicsDescribe: rec('describe'),
    } as CommandHandlers
    const run = async (argv: string[]) => await runCli(argv, testIo(), fake)
    expect(
      await run([
        'topics',
        'alter',
        't',
        '--config',
        'retention.ms=5',
        '--config',
        'a=b=c',
        '--delete-config',
        'x',
        '--delete-config',
        'y',
      ]),
    ).toBe(0)
    expect(await run(['topics', 'delete-records', 't', '--partition', '2', '--before-offset', '10'])).toBe(0)
    expect(await run(['topics', 'delete-records', 't', '--partition', '0', '--before-offset', 'hw'])).toBe(0)
    expect(await run(['topics', 'describe', 't', '--configs'])).toBe(0)
    expect(await run(['topics', 'delete-records', 't', '--partition', '0', '--before-offset', '-3'])).not.toBe(0)
    expect(await run(['topics', 'delete-records', 't', '--before-offset', '3'])).not.toBe(0)
    expect(calls).toEqual([
      ['alter', 't', { config: { 'retention.ms': '5', a: 'b=c' }, deleteConfig: ['x', 'y'] }],
      ['deleteRecords', 't', { partition: 2, beforeOffset: 10n }],
      ['deleteRecords', 't', { partition: 0, beforeOffset: 'high-watermark' }],
      ['describe', 't', { configs: true, underReplicated: false }],
    ])
  })

  it('alters configs at run time, shows every effective config with its source, and deletes records', async () => {
    const cluster = await startCluster({ brokers: 1 })
    onTestFinished(() => cluster.stop())
    const b = cluster.bootstrap
    expect((await cli(b, ['topics', 'create', 'events', '--partitions', '1'])).code).toBe(0)
    const altered = await cli(b, [
      'topics',
      'alter',
      'events',
      '--config',
      'retention.ms=3600000',
      '--config',
      'cleanup.policy=compact,delete',
    ])
    expect(altered).toMatchObject({
      code: 0,
      out: 'altered topic events: retention.ms=3600000, cleanup.policy=compact,delete\n',
    })
    const described = await cli(b, ['--json', 'topics', 'describe', 'events', '--configs'])
    expect(described.code).toBe(0)
    const rows = JSON.parse(described.out) as Array<{ name: string; value: string; source: string }>
    const byName = new Map(rows.map((r) => [r.name, r]))
    expect(byName.get('retention.ms')).toEqual({ name: 'retention.ms', value: '3600000', source: 'topic' })
    expect(byName.get('cleanup.policy')).toEqual({ name: 'cleanup.policy', value: 'compact,delete', source: 'topic' })
    expect(byName.get('segment.bytes')).toEqual({ name: 'segment.bytes', value: '1073741824', source: 'default' })
    expect(rows.length).toBeGreaterThanOrEqual(13)
    const table = await cli(b, ['topics', 'describe', 'events', '--configs'])
    expect(table.out).toMatch(/^CONFIG\s+VALUE\s+SOURCE\n/)
    expect(table.out).toMatch(/retention\.ms\s+3600000\s+topic\n/)
    expect((await cli(b, ['topics', 'alter', 'events', '--delete-config', 'retention.ms'])).code).toBe(0)
    const after = JSON.parse((await cli(b, ['--json', 'topics', 'describe', 'events', '--configs'])).out) as Array<{
      name: string
      source: string
    }>
    expect(after.find((r) => r.name === 'retention.ms')?.source).toBe('default')
    const bad = await cli(b, ['topics', 'alter', 'events', '--config', 'retention.ms=-5'])
    expect(bad.code).toBe(1)
    expect(bad.err).toMatch(/INVALID_CONFIG.*retention\.ms/)

    const client = await connect({ bootstrap: b })
    onTestFinished(() => client.close())
    const producer = client.producer()
    await producer.send({
      topic: 'events',
      records: Array.from({ length: 10 }, (_, i) => ({ key: `k${i}`, value: `v${i}`, partition: 0 })),
    })
    const deleted = await cli(b, ['topics', 'delete-records', 'events', '--partition', '0', '--before-offset', '4'])
    expect(deleted).toMatchObject({
      code: 0,
      out: 'deleted records of events/0 below offset 4 (new log start offset)\n',
    })
    expect(
      await client.admin().deleteRecords([{ topic: 'events', partition: 0, beforeOffset: 'high-watermark' }]),
    ).toEqual([{ topic: 'events', partition: 0, lowWatermark: 10n }])
    const tooFar = await cli(b, ['topics', 'delete-records', 'events', '--partition', '0', '--before-offset', '99'])
    expect([tooFar.code, tooFar.err]).toEqual([1, expect.stringMatching(/OFFSET_OUT_OF_RANGE/)])
  })
})
