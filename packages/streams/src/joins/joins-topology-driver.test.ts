import { afterEach, describe, expect, it } from 'vitest'
import { TopologyTestDriver } from '../driver/topology-test-driver.js'
import { StreamsBuilder } from '../dsl/streams-builder.js'
import { Serdes } from '../serdes/serdes.js'
import { JoinWindows } from './join-windows.js'
import { StreamJoined } from './stream-joined.js'

const s = Serdes.string()
let driver: TopologyTestDriver | undefined

afterEach(() => {
  driver?.close()
  driver = undefined
})

describe('joins through the DSL and the TopologyTestDriver', () => {
  it('stream-table leftJoin: each click gets the user row as it is when the click is processed', () => {
    const builder = new StreamsBuilder()
    const users = builder.table('users', { keySerde: s, valueSerde: s, name: 'users-store' })
    builder
      .stream('clicks', { keySerde: s, valueSerde: s })
      .leftJoin(users, (click: string, user: string | null) => `${click} by ${user ?? 'unknown'}`)
      .to('enriched', { valueSerde: s })
    const topology = builder.build()
    driver = new TopologyTestDriver(topology)
    // One sub-topology: the join reads the table's store, so clicks and users are co-partitioned.
    expect(driver.plan.subtopologies).toHaveLength(1)
    expect(driver.plan.subtopologies[0]?.copartitionGroups).toEqual([['clicks', 'users']])
    const clicks = driver.createInputTopic('clicks', s, s)
    const usersIn = driver.createInputTopic('users', s, s)
    const out = driver.createOutputTopic('enriched', s, s)
    clicks.pipeInput('u1', 'home', 1)
    usersIn.pipeInput('u1', 'alice', 2)
    clicks.pipeInput('u1', 'cart', 3)
    usersIn.pipeInput('u1', null, 4)
    clicks.pipeInput('u1', 'pay', 5)
    expect(out.readRecordsToList().map((r) => [r.key, r.value, r.timestamp])).toEqual([
      ['u1', 'home by unknown', 1],
      ['u1', 'cart by alice', 3],
      ['u1', 'pay by unknown', 5],
    ])
  })

  it('stream-table join needs a materialized table and a stream partitioned by key', () => {
    const builder = new StreamsBuilder()
    const users = builder.table('users', { keySerde: s, valueSerde: s, name: 'users-store' })
    const clicks = builder.stream('clicks', { keySerde: s, valueSerde: s })
    expect(() => clicks.selectKey((_k, v) => v).join(users, (a: string, b: string) => a + b)).toThrow(/repartition/)
    const unmaterialized = users.filter(() => true)
    expect(() => clicks.join(unmaterialized, (a: string, b: string) => a + b)).toThrow(/not materialized/)
  })

  it('stream-stream leftJoin: the unmatched result comes once, after the window and grace', () => {
    const builder = new StreamsBuilder()
    const views = builder.stream('views', { keySerde: s, valueSerde: s })
    const clicks = builder.stream('clicks', { keySerde: s, valueSerde: s })
    views
      .leftJoin(
        clicks,
        (view: string, click: string | null) => `${view}/${click}`,
        JoinWindows.ofTimeDifferenceAndGrace(10, 5),
        StreamJoined.with(s, s, s).withStoreName('views-clicks').withInMemoryStores(),
      )
      .to('joined', { valueSerde: s })
    driver = new TopologyTestDriver(builder.build())
    const viewsIn = driver.createInputTopic('views', s, s)
    const clicksIn = driver.createInputTopic('clicks', s, s)
    const out = driver.createOutputTopic('joined', s, s)
    viewsIn.pipeInput('a', 'v1', 0)
    viewsIn.pipeInput('b', 'v2', 5)
    clicksIn.pipeInput('b', 'c2', 8)
    viewsIn.pipeInput('z', 'v3', 15)
    expect(out.readRecordsToList().map((r) => r.value)).toEqual(['v2/c2'])
    viewsIn.pipeInput('z', 'v4', 16)
    expect(out.readRecordsToList().map((r) => r.value)).toEqual(['v1/null'])
    const changelogs = driver.plan.internalTopics.filter((t) => t.kind === 'changelog').map((t) => t.name)
    expect(changelogs.sort()).toEqual([
      'test-app-views-clicks-other-join-store-changelog',
      'test-app-views-clicks-outer-shared-join-store-changelog',
      'test-app-views-clicks-this-join-store-changelog',
    ])
  })

  it('table-table join: a new row on either side updates the result, a delete sends a tombstone', () => {
    const builder = new StreamsBuilder()
    const left = builder.table('left', { keySerde: s, valueSerde: s, name: 'left-store' })
    const right = builder.table('right', { keySerde: s, valueSerde: s, name: 'right-store' })
    left
      .join(right, (l: string, r: string) => `${l}+${r}`, { name: 'lr' })
      .toStream()
      .to('joined', { valueSerde: s })
    driver = new TopologyTestDriver(builder.build())
    const leftIn = driver.createInputTopic('left', s, s)
    const rightIn = driver.createInputTopic('right', s, s)
    const out = driver.createOutputTopic('joined', s, s)
    leftIn.pipeInput('k', 'A', 1)
    rightIn.pipeInput('k', 'a', 2)
    leftIn.pipeInput('k', 'B', 3)
    rightIn.pipeInput('k', null, 4)
    expect(out.readKeyValuesToList()).toEqual([
      { key: 'k', value: 'A+a' },
      { key: 'k', value: 'B+a' },
      { key: 'k', value: null },
    ])
  })

  it('stream-globalTable join: the key selector picks the row, the stream keeps its key and needs no co-partitioning', () => {
    const builder = new StreamsBuilder()
    const products = builder.globalTable('products', { keySerde: s, valueSerde: s, name: 'products-store' })
    builder
      .stream('orders', { keySerde: s, valueSerde: s })
      .leftJoin(
        products,
        (_orderId: string | null, productId: string) => productId,
        (productId: string, product: string | null) => `${productId}=${product ?? '?'}`,
      )
      .to('priced', { valueSerde: s })
    driver = new TopologyTestDriver(builder.build())
    expect(driver.plan.subtopologies[0]?.copartitionGroups).toEqual([])
    driver.createInputTopic('products', s, s).pipeInput('p1', 'lamp', 1)
    const orders = driver.createInputTopic('orders', s, s)
    orders.pipeInput('o1', 'p1', 2)
    orders.pipeInput('o2', 'p2', 3)
    const out = driver.createOutputTopic('priced', s, s)
    expect(out.readKeyValuesToList()).toEqual([
      { key: 'o1', value: 'p1=lamp' },
      { key: 'o2', value: 'p2=?' },
    ])
  })

  it('a processor may connect only to the store of a global table as a global store', () => {
    const builder = new StreamsBuilder()
    const users = builder.table('users', { keySerde: s, valueSerde: s, name: 'users-store' })
    const fake = { topic: 'users', storeName: 'users-store' }
    builder.stream('orders', { keySerde: s, valueSerde: s }).join(
      fake,
      (_k: string | null, v: string) => v,
      (v: string, row: string | null) => `${v}${row}`,
    )
    expect(users.storeName).toBe('users-store')
    expect(() => builder.build()).toThrow(/not the store of a global table/)
  })
})
