import { describe, expect, it } from 'vitest'
import type { ConsoleServer } from '@sluice/console'
import type { CommandHandlers, ConsoleArgs } from '../command-types.js'
import { runCli } from '../program.js'
import { testIo } from '../test-io.js'
import { consoleBanner, consoleOptionsOf } from './console.js'

function recording(): { calls: unknown[]; handlers: CommandHandlers } {
  const calls: unknown[] = []
  const handlers = new Proxy({} as CommandHandlers, {
    get:
      (_t, name) =>
      async (...args: unknown[]) => {
        calls.push([name, (args[0] as { bootstrap?: unknown }).bootstrap, args[1]])
        return 0
      },
  })
  return { calls, handlers }
}

const base: ConsoleArgs = { port: 8080, readOnly: false }

describe('sluice console: flags', () => {
  it('parses --port, --host, --read-only, --token and --connect-url', async () => {
    const { calls, handlers } = recording()
    const args = [
      '--bootstrap',
      'h:1',
      'console',
      '--port',
      '0',
      '--host',
      '0.0.0.0',
      '--read-only',
      '--token',
      's3cret',
      '--connect-url',
      'http://w:8083',
    ]
    expect(await runCli(args, testIo(), handlers)).toBe(0)
    expect(await runCli(['console'], testIo(), handlers)).toBe(0)
    expect(calls).toEqual([
      ['console', ['h:1'], { port: 0, host: '0.0.0.0', readOnly: true, token: 's3cret', connectUrl: 'http://w:8083' }],
      ['console', ['127.0.0.1:9192'], { port: 8080, readOnly: false }],
    ])
    const bad = testIo()
    expect(await runCli(['console', '--port', 'http'], bad, handlers)).not.toBe(0)
    expect(bad.err()).toMatch(/port/)
  })

  it('takes the token from SLUICE_CONSOLE_TOKEN unless --token is given, and refuses a blank one', () => {
    expect(consoleOptionsOf(base, { SLUICE_CONSOLE_TOKEN: 'env-t' }).token).toBe('env-t')
    expect(consoleOptionsOf({ ...base, token: 'flag-t' }, { SLUICE_CONSOLE_TOKEN: 'env-t' }).token).toBe('flag-t')
    expect(consoleOptionsOf(base, { SLUICE_CONSOLE_TOKEN: '' }).token).toBeUndefined()
    expect(() => consoleOptionsOf({ ...base, token: '  ' }, {})).toThrow(/blank/)
  })

  it('reads the Connect URL and read-only mode from the environment too, flags first', () => {
    const env = { SLUICE_CONSOLE_CONNECT_URL: 'http://env:8083', SLUICE_CONSOLE_READ_ONLY: '1' }
    expect(consoleOptionsOf(base, env)).toMatchObject({ connectUrl: 'http://env:8083', readOnly: true })
    expect(consoleOptionsOf({ ...base, connectUrl: 'http://flag:8083' }, env).connectUrl).toBe('http://flag:8083')
    expect(consoleOptionsOf(base, { SLUICE_CONSOLE_READ_ONLY: '0' }).readOnly).toBe(false)
    expect(consoleOptionsOf({ ...base, readOnly: true }, { SLUICE_CONSOLE_READ_ONLY: '0' }).readOnly).toBe(true)
    expect(() => consoleOptionsOf(base, { SLUICE_CONSOLE_READ_ONLY: 'yes' })).toThrow(/1 or 0/)
  })

  it('prints the URL, and warns when it listens beyond the loopback without a token', () => {
    const server = {
      url: 'http://127.0.0.1:8080',
      port: 8080,
      openStreams: 0,
      close: async () => {},
    } satisfies ConsoleServer
    expect(consoleBanner(server, consoleOptionsOf(base, {}))).toEqual(['console at http://127.0.0.1:8080'])
    const open = consoleBanner(server, consoleOptionsOf({ ...base, host: '0.0.0.0', readOnly: true }, {}))
    expect(open[0]).toBe('console at http://127.0.0.1:8080 (read-only)')
    expect(open[1]).toMatch(/warning: .*0\.0\.0\.0 without a token/)
    expect(consoleBanner(server, consoleOptionsOf({ ...base, host: '0.0.0.0', token: 't' }, {}))).toHaveLength(1)
  })
})
