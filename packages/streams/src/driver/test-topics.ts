/**
 * The typed faces of the test driver's topics: an input topic serializes and pipes records in,
 * an output topic reads (and consumes) what the topology wrote, deserialized.
 */
import type { StreamHeader } from '../api/record.js'
import type { Serde } from '../api/serde.js'
import { StreamsError } from '../errors.js'
import type { SinkRecord } from '../runtime/task-contract.js'
import type { KeyValue } from '../state/store-types.js'

export interface TestRecord<K, V> {
  readonly key: K | null
  readonly value: V | null
  readonly timestamp: number
  readonly headers: readonly StreamHeader[]
}

/** What an input topic needs from the driver. */
export interface DriverInput {
  pipe(
    topic: string,
    key: Buffer | null,
    value: Buffer | null,
    timestampMs: number | undefined,
    headers: readonly StreamHeader[],
  ): void
}

/** What an output topic needs from the driver: the records written to a topic and not yet read. */
export interface DriverOutput {
  queue(topic: string): SinkRecord[]
}

export class TestInputTopic<K, V> {
  /** @internal Made by TopologyTestDriver.createInputTopic. */
  constructor(
    private readonly driver: DriverInput,
    readonly name: string,
    private readonly keySerde: Serde<K>,
    private readonly valueSerde: Serde<V>,
  ) {}

  /** Pipes one record; the timestamp defaults to the driver's wall clock. */
  pipeInput(key: K | null, value: V | null, timestampMs?: number, headers: readonly StreamHeader[] = []): void {
    const keyBytes = key === null ? null : this.keySerde.serialize(key, this.name)
    const valueBytes = value === null ? null : this.valueSerde.serialize(value, this.name)
    this.driver.pipe(this.name, keyBytes, valueBytes, timestampMs, headers)
  }

  pipeKeyValueList(records: readonly KeyValue<K | null, V | null>[], timestampMs?: number): void {
    for (const r of records) this.pipeInput(r.key, r.value, timestampMs)
  }
}

export class TestOutputTopic<K, V> {
  /** @internal Made by TopologyTestDriver.createOutputTopic. */
  constructor(
    private readonly driver: DriverOutput,
    readonly name: string,
    private readonly keySerde: Serde<K>,
    private readonly valueSerde: Serde<V>,
  ) {}

  /** The next record (consumed); StreamsError 'STATE' when there is none. */
  readRecord(): TestRecord<K, V> {
    const next = this.driver.queue(this.name).shift()
    if (next === undefined) throw new StreamsError('STATE', `output topic '${this.name}' has no record to read`)
    return this.typed(next)
  }

  readKeyValue(): KeyValue<K | null, V | null> {
    const { key, value } = this.readRecord()
    return { key, value }
  }

  readValue(): V | null {
    return this.readRecord().value
  }

  readRecordsToList(): TestRecord<K, V>[] {
    const queue = this.driver.queue(this.name)
    return queue.splice(0, queue.length).map((r) => this.typed(r))
  }

  readKeyValuesToList(): KeyValue<K | null, V | null>[] {
    return this.readRecordsToList().map(({ key, value }) => ({ key, value }))
  }

  /** The newest value per key (a null value deletes the key, as a table reads it). */
  readKeyValuesToMap(): Map<K | null, V> {
    const map = new Map<K | null, V>()
    for (const { key, value } of this.readRecordsToList()) {
      if (value === null) map.delete(key)
      else map.set(key, value)
    }
    return map
  }

  isEmpty(): boolean {
    return this.driver.queue(this.name).length === 0
  }

  getQueueSize(): number {
    return this.driver.queue(this.name).length
  }

  private typed(r: SinkRecord): TestRecord<K, V> {
    return {
      key: r.key === null ? null : this.keySerde.deserialize(r.key, this.name),
      value: r.value === null ? null : this.valueSerde.deserialize(r.value, this.name),
      timestamp: r.timestamp,
      headers: r.headers,
    }
  }
}
