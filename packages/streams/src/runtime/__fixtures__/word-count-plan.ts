/**
 * TEST FIXTURE: a hand-made TopologyPlan for the runtime's tests, written against
 * runtime/task-contract.ts only (the DSL builds the real ones). Word count in two
 * sub-topologies, as the DSL would make it:
 *
 * - sub-topology 0 reads `input` (values are lines of words), splits them and writes every word
 *   as key to the repartition topic `<app>-words-repartition` (partitioned by the word, like
 *   the input);
 * - sub-topology 1 reads the repartition topic, counts every word in the store `counts`
 *   (changelog `<app>-counts-changelog`) and writes `word -> count` to `output`.
 *
 * Hooks for the error-policy tests: a value starting with `\u0000` makes the source "serde"
 * throw StreamsError 'SERDE'; the value `boom` makes processing throw. `punctuateEveryMs`
 * schedules a wall-clock punctuation in every task of sub-topology 1, counted in `probe`.
 */
import type { TaskId } from '../../api/task-id.js'
import { taskIdString } from '../../api/task-id.js'
import { StreamsError } from '../../errors.js'
import { changelogTopic, type StateStore, type StoreSpec } from '../../state/store-types.js'
import type { SourceRecord, StreamTask, TaskDeps, TaskMetrics, TopologyPlan } from '../task-contract.js'
import { MapCountStore } from './map-store.js'

export interface WordCountFixtureOptions {
  readonly applicationId: string
  readonly input: string
  readonly output: string
  /** The store keeps its map in a file (a persistent store); default false (in memory). */
  readonly persistent?: boolean
  /** Fixed partition count of the repartition topic; default: like sub-topology 0's input. */
  readonly repartitionPartitions?: number
  readonly punctuateEveryMs?: number
  /** What the tests read back: the live tasks' stores and the punctuations that ran. */
  readonly probe?: WordCountProbe
}

export interface WordCountProbe {
  stores: Map<string, MapCountStore>
  punctuations: number
}

export function newProbe(): WordCountProbe {
  return { stores: new Map(), punctuations: 0 }
}

export function repartitionTopicOf(applicationId: string): string {
  return `${applicationId}-words-repartition`
}

export function wordCountPlan(o: WordCountFixtureOptions): TopologyPlan {
  const repartition = repartitionTopicOf(o.applicationId)
  const changelog = changelogTopic(o.applicationId, 'counts')
  const countsSpec: StoreSpec = {
    name: 'counts',
    kind: 'key-value',
    persistent: o.persistent ?? false,
    logging: true,
    caching: false,
  }
  return {
    applicationId: o.applicationId,
    subtopologies: [
      { id: 0, sourceTopics: [o.input], sinkTopics: [repartition], stores: [], copartitionGroups: [] },
      { id: 1, sourceTopics: [repartition], sinkTopics: [o.output], stores: [countsSpec], copartitionGroups: [] },
    ],
    internalTopics: [
      {
        name: repartition,
        kind: 'repartition',
        ...(o.repartitionPartitions !== undefined ? { partitions: o.repartitionPartitions } : { partitionsLike: 0 }),
        configs: {},
      },
      { name: changelog, kind: 'changelog', partitionsLike: 1, configs: { 'cleanup.policy': 'compact' } },
    ],
    globalStores: [],
    createTask: (id, deps) => new WordCountTask(id, deps, o, repartition, changelog),
    createGlobalStore: () => {
      throw new StreamsError('TOPOLOGY', 'the word-count fixture has no global store')
    },
  }
}

class WordCountTask implements StreamTask {
  readonly stores: ReadonlyMap<string, StateStore>
  readonly metrics: TaskMetrics = { processed: 0, droppedLate: 0, outOfOrder: 0, skipped: 0 }
  streamTimeMs = -1
  private readonly store: MapCountStore | undefined
  private nextPunctuation = Number.POSITIVE_INFINITY

  constructor(
    readonly id: TaskId,
    private readonly deps: TaskDeps,
    private readonly o: WordCountFixtureOptions,
    private readonly repartition: string,
    private readonly changelog: string,
  ) {
    this.store = id.subtopology === 1 ? new MapCountStore('counts', o.persistent ?? false) : undefined
    this.stores = new Map(this.store === undefined ? [] : [['counts', this.store]])
  }

  init(): void {
    if (this.store !== undefined) {
      const partition = this.id.partition
      this.store.init({
        applicationId: this.deps.applicationId,
        taskId: this.id,
        stateDir: this.deps.stateDir,
        changelog: {
          send: (r) =>
            this.deps.sender.send({
              topic: this.changelog,
              partition,
              key: r.key,
              value: r.value,
              timestamp: r.timestamp,
              headers: [],
            }),
        },
        streamTimeMs: () => this.streamTimeMs,
      })
      this.o.probe?.stores.set(taskIdString(this.id), this.store)
      if (this.o.punctuateEveryMs !== undefined) this.nextPunctuation = this.deps.clock() + this.o.punctuateEveryMs
    }
  }

  process(r: SourceRecord): void {
    const text = r.value?.toString() ?? ''
    if (text.startsWith('\u0000')) {
      throw new StreamsError('SERDE', `cannot read the value at ${r.topic}/${r.partition}@${r.offset}`)
    }
    if (text === 'boom') throw new Error('processing failed on purpose')
    this.streamTimeMs = Math.max(this.streamTimeMs, r.timestamp)
    this.metrics.processed++
    if (this.store === undefined) {
      for (const word of text.split(/\s+/).filter((w) => w !== '')) {
        const key = Buffer.from(word)
        this.deps.sender.send({ topic: this.repartition, key, value: key, timestamp: r.timestamp, headers: [] })
      }
      return
    }
    const word = r.key?.toString() ?? ''
    const count = (this.store.get(word) ?? 0) + 1
    this.store.put(word, count)
    this.deps.sender.send({
      topic: this.o.output,
      key: Buffer.from(word),
      value: Buffer.from(String(count)),
      timestamp: r.timestamp,
      headers: [],
    })
  }

  punctuateWallClock(nowMs: number): void {
    if (this.o.punctuateEveryMs === undefined || nowMs < this.nextPunctuation) return
    this.o.probe!.punctuations++
    this.nextPunctuation = nowMs + this.o.punctuateEveryMs
  }

  nextWallClockPunctuationMs(): number | undefined {
    return Number.isFinite(this.nextPunctuation) ? this.nextPunctuation : undefined
  }

  flush(): void {
    this.store?.flush()
  }

  close(): void {
    this.store?.close()
    const key = taskIdString(this.id)
    if (this.store !== undefined && this.o.probe?.stores.get(key) === this.store) this.o.probe.stores.delete(key)
  }
}
