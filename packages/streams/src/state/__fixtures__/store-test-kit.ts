/** Serdes and a StateStoreContext for the state store tests (not part of the package build). */
import type { Serde } from '../../api/serde.js'
import type { ChangelogRecord, StateStoreContext } from '../store-types.js'

export const stringSerde: Serde<string> = {
  name: 'string',
  serialize: (value) => Buffer.from(value, 'utf8'),
  deserialize: (data) => data.toString('utf8'),
}

export const numberSerde: Serde<number> = {
  name: 'number',
  serialize: (value) => {
    const out = Buffer.alloc(8)
    out.writeDoubleBE(value)
    return out
  },
  deserialize: (data) => data.readDoubleBE(0),
}

export interface TestContext extends StateStoreContext {
  readonly logged: ChangelogRecord[]
  streamTime: number
  recordTime: number
}

/** A context whose changelog collects what it is sent, with stream time set by the test. */
export function testContext(stateDir = '/nonexistent-state-dir', withChangelog = true): TestContext {
  const logged: ChangelogRecord[] = []
  const context: TestContext = {
    applicationId: 'app',
    taskId: { subtopology: 0, partition: 0 },
    stateDir,
    logged,
    streamTime: 0,
    recordTime: -1,
    changelog: withChangelog ? { send: (record) => logged.push(record) } : undefined,
    streamTimeMs: () => context.streamTime,
    recordTimestampMs: () => context.recordTime,
  }
  return context
}
