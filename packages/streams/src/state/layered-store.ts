/**
 * What every store kind shares: the stack of bytes layers (engine, change logging, write cache)
 * built in init(), restore straight into the engine, flush, close, and the checks that the store
 * is open. Key-value, window and session stores extend it and only turn their keys into bytes,
 * so the layering is written once.
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { StreamsError } from '../errors.js'
import type { BytesEngine, BytesEngineFactory, BytesLayer } from './bytes-engine.js'
import { type CacheFlushEntry, CachingLayer, DEFAULT_CACHE_MAX_BYTES } from './caching-layer.js'
import { ChangeLoggingLayer } from './change-logging-layer.js'
import { type ChangelogRecord, type StateStore, type StateStoreContext, changelogTopic } from './store-types.js'

export interface LayerOptions {
  /** Send every write that leaves the cache to the changelog (default true). */
  readonly logging: boolean
  /** Put a write cache in front (default true). */
  readonly caching: boolean
  /** The cache's bound in bytes (default 10 MiB). */
  readonly cacheMaxBytes: number
}

export const DEFAULT_LAYER_OPTIONS: LayerOptions = {
  logging: true,
  caching: true,
  cacheMaxBytes: DEFAULT_CACHE_MAX_BYTES,
}

interface OpenStack {
  readonly context: StateStoreContext
  readonly engine: BytesEngine
  readonly top: BytesLayer
  readonly cache: CachingLayer | undefined
  /** The changelog topic's name, which the serdes are given (as Kafka's stores do). */
  readonly topic: string
}

export abstract class LayeredStore implements StateStore {
  private stack: OpenStack | undefined
  private closed = false
  private cacheListener: ((entries: readonly CacheFlushEntry[]) => void) | undefined

  constructor(
    readonly name: string,
    readonly persistent: boolean,
    private readonly engineFactory: BytesEngineFactory,
    readonly layerOptions: LayerOptions,
  ) {}

  get isOpen(): boolean {
    return this.stack !== undefined
  }

  init(context: StateStoreContext): void {
    if (this.stack !== undefined) throw new StreamsError('INVALID_CONFIG', `store '${this.name}' is already open`)
    if (this.closed) throw new StreamsError('STORE_NOT_OPEN', `store '${this.name}' was closed; build a new one`)
    const engine = this.engineFactory()
    const dir = join(context.stateDir, this.name)
    if (engine.persistent) mkdirSync(dir, { recursive: true })
    engine.open(dir)
    const logged = this.layerOptions.logging ? new ChangeLoggingLayer(engine, context.changelog) : engine
    const cache = this.layerOptions.caching ? new CachingLayer(logged, this.layerOptions.cacheMaxBytes) : undefined
    if (cache !== undefined && this.cacheListener !== undefined) cache.setFlushListener(this.cacheListener)
    const topic = changelogTopic(context.applicationId, this.name)
    this.stack = { context, engine, top: cache ?? logged, cache, topic }
    this.opened()
  }

  restoreBatch(records: readonly ChangelogRecord[]): void {
    const { engine } = this.open()
    for (const record of records) engine.put(record.key, record.value, record.timestamp)
    this.restored(records)
  }

  flush(): void {
    const { top } = this.open()
    top.flush()
    this.flushed()
  }

  /**
   * Closes without flushing: what the cache and the engine hold unflushed is dropped, as a
   * crash would drop it, and comes back from the changelog (the runtime flushes before it
   * commits, and commits before a clean close).
   */
  close(): void {
    const stack = this.stack
    if (stack === undefined) return
    this.stack = undefined
    this.closed = true
    stack.top.close()
  }

  /** Hooks for the store kinds (window and session stores track expiry here). */
  protected opened(): void {}
  protected restored(_records: readonly ChangelogRecord[]): void {}
  protected flushed(): void {}

  /** The top of the stack (what reads and writes go to); throws when the store is not open. */
  protected layer(): BytesLayer {
    return this.open().top
  }

  /** The engine alone: expiry deletes go here, unlogged (the changelog has its own retention). */
  protected engine(): BytesEngine {
    return this.open().engine
  }

  protected topic(): string {
    return this.open().topic
  }

  protected streamTimeMs(): number {
    return this.open().context.streamTimeMs()
  }

  /** The time a write's changelog record carries: the current record's, else stream time, else now. */
  protected writeTimestamp(): number {
    const { context } = this.open()
    const recordTime = context.recordTimestampMs?.() ?? -1
    if (recordTime >= 0) return recordTime
    const streamTime = context.streamTimeMs()
    return streamTime >= 0 ? streamTime : Date.now()
  }

  /** Registers the bytes-level cache listener; false when the store has no cache. */
  protected setCacheListener(listener: ((entries: readonly CacheFlushEntry[]) => void) | undefined): boolean {
    if (!this.layerOptions.caching) return false
    this.cacheListener = listener
    this.stack?.cache?.setFlushListener(listener)
    return true
  }

  private open(): OpenStack {
    if (this.stack === undefined) {
      throw new StreamsError('STORE_NOT_OPEN', `store '${this.name}' is not open (init() not called, or closed)`)
    }
    return this.stack
  }
}
