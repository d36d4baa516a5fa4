import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { StreamsBuilder } from '../dsl/streams-builder.js'
import { isStreamsError } from '../errors.js'
import { Serdes } from '../serdes/serdes.js'
import { TopologyTestDriver } from './topology-test-driver.js'

const str = Serdes.string()
const drivers: TopologyTestDriver[] = []
const dirs: string[] = []
afterEach(() => {
  for (const d of drivers.splice(0)) d.close()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

function passThrough(): TopologyTestDriver {
  const builder = new StreamsBuilder()
  builder.stream('in', { keySerde: str, valueSerde: str }).to('out')
  const driver = new TopologyTestDriver(builder.build(), { initialWallClockMs: 5000 })
  drivers.push(driver)
  return driver
}

describe('TopologyTestDriver', () => {
  it('pipes with the wall clock as the default timestamp, and reads each record once', () => {
    const driver = passThrough()
    const input = driver.createInputTopic('in', str, str)
    const out = driver.createOutputTopic('out', str, str)
    input.pipeKeyValueList([
      { key: 'a', value: '1' },
      { key: 'b', value: '2' },
    ])
    expect(out.getQueueSize()).toBe(2)
    expect(out.readRecord()).toMatchObject({ key: 'a', value: '1', timestamp: 5000 })
    expect(out.readKeyValuesToList()).toEqual([{ key: 'b', value: '2' }])
    expect(out.isEmpty()).toBe(true)
    expect(() => out.readKeyValue()).toThrowError(/output topic 'out' has no record to read/)
  })

  it('refuses topics the topology does not read, and use after close', () => {
    const driver = passThrough()
    expect(() => driver.createInputTopic('nope', str, str)).toThrowError(/topic 'nope' is not read by the topology/)
    const input = driver.createInputTopic('in', str, str)
    driver.close()
    let error: unknown
    try {
      input.pipeInput('k', 'v', 1)
    } catch (e) {
      error = e
    }
    expect(isStreamsError(error, 'STATE')).toBe(true)
    expect(() => driver.advanceWallClockTime(-1)).toThrowError(/closed/)
  })

  it('feeds a user topic the topology writes and reads again back into the reading sub-topology', () => {
    const builder = new StreamsBuilder()
    builder
      .stream('in', { keySerde: str, valueSerde: str })
      .mapValues((v) => v.toUpperCase())
      .to('middle', { valueSerde: str })
    builder
      .stream('middle', { keySerde: str, valueSerde: str })
      .mapValues((v) => `${v}!`)
      .to('out', { valueSerde: str })
    const topology = builder.build()
    expect(topology.describe().subtopologies).toHaveLength(2)
    const driver = new TopologyTestDriver(topology)
    drivers.push(driver)
    driver.createInputTopic('in', str, str).pipeInput('k', 'hi', 1)
    expect(driver.createOutputTopic('out', str, str).readKeyValue()).toEqual({ key: 'k', value: 'HI!' })
    expect(driver.producedTopicNames().sort()).toEqual(['middle', 'out'])
  })

  it('runs persistent stores under the given state directory, one directory per task', () => {
    const root = mkdtempSync(join(tmpdir(), 'ttd-test-'))
    dirs.push(root)
    const builder = new StreamsBuilder()
    builder.stream('in', { keySerde: str, valueSerde: str }).groupByKey().count({ name: 'disk', persistent: true })
    const driver = new TopologyTestDriver(builder.build(), { stateDir: join(root, 'state') })
    drivers.push(driver)
    const input = driver.createInputTopic('in', str, str)
    input.pipeInput('k', 'v', 1)
    input.pipeInput('k', 'v', 2)
    expect(driver.getKeyValueStore<string, number>('disk').get('k')).toBe(2)
    expect(readdirSync(join(root, 'state', '0_0'))).toEqual(['disk'])
    driver.close()
    // A caller's directory is the caller's to remove.
    expect(existsSync(join(root, 'state'))).toBe(true)
  })
})
