import { describe, expect, it } from 'vitest'
import { runCli } from '../program.js'
import { testIo } from '../test-io.js'
import { parseConfigFile, workerConfigOf } from './connect.js'
import type { CommandHandlers, ConnectArgs } from '../command-types.js'

const none: ConnectArgs = { standalone: [], bootstrapGiven: false }

describe('sluice connect: config files', () => {
  it('reads .properties (comments, = and :) and JSON, including the REST body shape', () => {
    expect(parseConfigFile('# c\n! c\nname=a\nfile : /tmp/x\n\ntopic= t \n', 'f')).toEqual({
      name: 'a',
      file: '/tmp/x',
      topic: 't',
    })
    expect(parseConfigFile('{"name":"a","config":{"tasks.max":2}}', 'f')).toEqual({ name: 'a', 'tasks.max': '2' })
    expect(() => parseConfigFile('just words', 'conn.properties')).toThrow(/conn.properties/)
    expect(() => parseConfigFile('{ nope', 'c.json')).toThrow(/not valid JSON/)
  })

  it("takes Kafka's worker properties, and flags over them", () => {
    const props = {
      'bootstrap.servers': 'h1:9192,h2:9192',
      'group.id': 'from-file',
      'rest.port': '18083',
      'offset.storage.topic': 'my-offsets',
      'value.converter': 'string',
      'value.converter.schemas.enable': 'false',
    }
    const a = workerConfigOf(props, none, ['127.0.0.1:9192'])
    expect(a.config).toMatchObject({
      bootstrap: ['h1:9192', 'h2:9192'],
      groupId: 'from-file',
      offsetStorageTopic: 'my-offsets',
      converterConfig: { 'value.converter': 'string', 'value.converter.schemas.enable': 'false' },
    })
    expect(a.restPort).toBe(18083)
    const b = workerConfigOf(props, { ...none, groupId: 'flag', restPort: 9999, bootstrapGiven: true }, ['b:1'])
    expect(b.config).toMatchObject({ bootstrap: ['b:1'], groupId: 'flag' })
    expect(b.restPort).toBe(9999)
    expect(() => workerConfigOf({}, none, ['b:1'])).toThrow(/--group-id/)
    expect(workerConfigOf({}, { ...none, standalone: ['c.properties'] }, ['b:1']).config.groupId).toMatch(
      /^sluice-standalone-/,
    )
  })

  it('parses the command line and refuses files without --standalone', async () => {
    const calls: unknown[] = []
    const handlers = new Proxy({} as CommandHandlers, {
      get:
        (_t, name) =>
        async (...args: unknown[]) => {
          calls.push([name, args.at(-1)])
          return 0
        },
    })
    expect(await runCli(['connect', '--group-id', 'g', '--rest-port', '8084'], testIo(), handlers)).toBe(0)
    expect(calls).toEqual([
      ['connect', expect.objectContaining({ groupId: 'g', restPort: 8084, standalone: [], bootstrapGiven: false })],
    ])
    const io = testIo()
    expect(await runCli(['connect', '--group-id', 'g', 'c.properties'], io, handlers)).not.toBe(0)
    expect(io.err()).toContain('--standalone')
    expect(await runCli(['connect', '--standalone', 'a.properties', 'b.json'], testIo(), handlers)).toBe(0)
    expect(calls.at(-1)).toEqual(['connect', expect.objectContaining({ standalone: ['a.properties', 'b.json'] })])
  })
})
