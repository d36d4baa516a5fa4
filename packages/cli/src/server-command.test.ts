import { describe, expect, it } from 'vitest'
import { runCli, type CommandHandlers } from './program.js'
import { testIo } from './test-io.js'

/** Only `server` is reached by these commands; every other handler fails the test if called. */
function serverRecorder(): { calls: unknown[][]; handlers: CommandHandlers } {
  const calls: unknown[][] = []
  const handlers = new Proxy({} as CommandHandlers, {
    get: (_t, name) =>
      name === 'server'
        ? async (role: string, flags: string[]) => {
            calls.push([role, flags])
          }
        : async () => {
            throw new Error(`unexpected handler ${String(name)}`)
          },
  })
  return { calls, handlers }
}

describe('sluice broker | metadata', () => {
  it('hands every flag to the server untouched, in order', async () => {
    const { calls, handlers } = serverRecorder()
    expect(
      await runCli(
        ['broker', '--broker-id', '2', '--metadata-endpoints=a:1,b:2', '--data-dir', '/d'],
        testIo(),
        handlers,
      ),
    ).toBe(0)
    expect(
      await runCli(['metadata', '--store', 'zookeeper', '--zk-connect', 'z1:2181', '--help'], testIo(), handlers),
    ).toBe(0)
    expect(await runCli(['broker'], testIo(), handlers)).toBe(0)
    expect(calls).toEqual([
      ['broker', ['--broker-id', '2', '--metadata-endpoints=a:1,b:2', '--data-dir', '/d']],
      ['metadata', ['--store', 'zookeeper', '--zk-connect', 'z1:2181', '--help']],
      ['broker', []],
    ])
  })

  it('lists both roles in the help', async () => {
    const io = testIo()
    await runCli(['--help'], io, serverRecorder().handlers)
    expect(io.out()).toMatch(/^\s+broker \[flags\.\.\.\]/m)
    expect(io.out()).toMatch(/^\s+metadata \[flags\.\.\.\]/m)
  })
})
