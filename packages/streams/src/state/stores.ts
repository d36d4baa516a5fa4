/**
 * `Stores`: the factory of store builders, as Kafka's `Stores`. Each builder describes a store
 * (its StoreSpec, for the runtime and describe()) and builds one instance per task.
 *
 * Logging and caching are on by default. Turn them off with the builder's
 * `withLoggingDisabled()` / `withCachingDisabled()` (each returns a new builder; builders are
 * immutable), or with the options `{ logging: false, caching: false }`; `cacheMaxBytes` sets the
 * cache's bound (default 10 MiB per store). A store name must be non-empty and made of
 * [A-Za-z0-9._-] (it names the changelog topic and the store's directory), else StreamsError
 * 'INVALID_NAME'.
 */
import type { Serde } from '../api/serde.js'
import { StreamsError } from '../errors.js'
import type { BytesEngineFactory } from './bytes-engine.js'
import { InMemoryBytesEngine } from './in-memory-engine.js'
import { TypedKeyValueStore } from './key-value-store.js'
import { DEFAULT_LAYER_OPTIONS, type LayerOptions } from './layered-store.js'
import { LmdbBytesEngine } from './lmdb-engine.js'
import { TypedSessionStore } from './session-store.js'
import type { KeyValueStore, SessionStore, StateStore, StoreBuilder, StoreKind, WindowStore } from './store-types.js'
import { TypedWindowStore } from './window-store.js'

export interface StoreOptions {
  /** Back the store with its changelog `<application>-<name>-changelog` (default true). */
  readonly logging?: boolean
  /** A write cache in front of the store (default true). */
  readonly caching?: boolean
  /** The write cache's bound in bytes (default 10 MiB). */
  readonly cacheMaxBytes?: number
}

export interface WindowStoreOptions extends StoreOptions {
  /** The windows' fixed size (> 0). */
  readonly windowSizeMs: number
  /** How long windows are kept behind stream time (>= windowSizeMs). */
  readonly retentionMs: number
}

export interface SessionStoreOptions extends StoreOptions {
  /** How long sessions are kept behind stream time, counted from their end (>= 0). */
  readonly retentionMs: number
}

interface Spec {
  readonly name: string
  readonly kind: StoreKind
  readonly persistent: boolean
  readonly retentionMs?: number
}

/** One builder for every kind: the kind's constructor is the only thing that differs. */
export class LayeredStoreBuilder<S extends StateStore> implements StoreBuilder<S> {
  constructor(
    private readonly spec: Spec,
    private readonly layers: LayerOptions,
    private readonly make: (layers: LayerOptions) => S,
  ) {}

  get name(): string {
    return this.spec.name
  }
  get kind(): StoreKind {
    return this.spec.kind
  }
  get persistent(): boolean {
    return this.spec.persistent
  }
  get retentionMs(): number | undefined {
    return this.spec.retentionMs
  }
  get logging(): boolean {
    return this.layers.logging
  }
  get caching(): boolean {
    return this.layers.caching
  }
  get cacheMaxBytes(): number {
    return this.layers.cacheMaxBytes
  }

  withLoggingDisabled(): LayeredStoreBuilder<S> {
    return new LayeredStoreBuilder(this.spec, { ...this.layers, logging: false }, this.make)
  }

  withCachingDisabled(): LayeredStoreBuilder<S> {
    return new LayeredStoreBuilder(this.spec, { ...this.layers, caching: false }, this.make)
  }

  withCacheMaxBytes(maxBytes: number): LayeredStoreBuilder<S> {
    return new LayeredStoreBuilder(this.spec, layerOptions({ ...this.layers, cacheMaxBytes: maxBytes }), this.make)
  }

  build(): S {
    return this.make(this.layers)
  }
}

const memory: BytesEngineFactory = () => new InMemoryBytesEngine()
const lmdb: BytesEngineFactory = () => new LmdbBytesEngine()

function keyValue<K, V>(
  name: string,
  persistent: boolean,
  keySerde: Serde<K>,
  valueSerde: Serde<V>,
  opts: StoreOptions | undefined,
): LayeredStoreBuilder<KeyValueStore<K, V>> {
  checkName(name)
  const engine = persistent ? lmdb : memory
  return new LayeredStoreBuilder<KeyValueStore<K, V>>(
    { name, kind: 'key-value', persistent },
    layerOptions(opts),
    (layers) => new TypedKeyValueStore(name, persistent, engine, layers, keySerde, valueSerde),
  )
}

function window<K, V>(
  name: string,
  persistent: boolean,
  keySerde: Serde<K>,
  valueSerde: Serde<V>,
  opts: WindowStoreOptions,
): LayeredStoreBuilder<WindowStore<K, V>> {
  checkName(name)
  const { windowSizeMs, retentionMs } = opts ?? {}
  if (!Number.isSafeInteger(windowSizeMs) || windowSizeMs <= 0) {
    throw new StreamsError('INVALID_CONFIG', `store '${name}': windowSizeMs must be a positive integer`)
  }
  if (!Number.isSafeInteger(retentionMs) || retentionMs < windowSizeMs) {
    throw new StreamsError('INVALID_CONFIG', `store '${name}': retentionMs must be an integer >= windowSizeMs`)
  }
  const engine = persistent ? lmdb : memory
  return new LayeredStoreBuilder<WindowStore<K, V>>(
    { name, kind: 'window', persistent, retentionMs },
    layerOptions(opts),
    (layers) => new TypedWindowStore(name, persistent, engine, layers, keySerde, valueSerde, windowSizeMs, retentionMs),
  )
}

function session<K, V>(
  name: string,
  persistent: boolean,
  keySerde: Serde<K>,
  valueSerde: Serde<V>,
  opts: SessionStoreOptions,
): LayeredStoreBuilder<SessionStore<K, V>> {
  checkName(name)
  const { retentionMs } = opts ?? {}
  if (!Number.isSafeInteger(retentionMs) || retentionMs < 0) {
    throw new StreamsError('INVALID_CONFIG', `store '${name}': retentionMs must be an integer >= 0`)
  }
  const engine = persistent ? lmdb : memory
  return new LayeredStoreBuilder<SessionStore<K, V>>(
    { name, kind: 'session', persistent, retentionMs },
    layerOptions(opts),
    (layers) => new TypedSessionStore(name, persistent, engine, layers, keySerde, valueSerde, retentionMs),
  )
}

export const Stores = {
  inMemoryKeyValueStore<K, V>(name: string, keySerde: Serde<K>, valueSerde: Serde<V>, opts?: StoreOptions) {
    return keyValue(name, false, keySerde, valueSerde, opts)
  },
  persistentKeyValueStore<K, V>(name: string, keySerde: Serde<K>, valueSerde: Serde<V>, opts?: StoreOptions) {
    return keyValue(name, true, keySerde, valueSerde, opts)
  },
  inMemoryWindowStore<K, V>(name: string, keySerde: Serde<K>, valueSerde: Serde<V>, opts: WindowStoreOptions) {
    return window(name, false, keySerde, valueSerde, opts)
  },
  persistentWindowStore<K, V>(name: string, keySerde: Serde<K>, valueSerde: Serde<V>, opts: WindowStoreOptions) {
    return window(name, true, keySerde, valueSerde, opts)
  },
  inMemorySessionStore<K, V>(name: string, keySerde: Serde<K>, valueSerde: Serde<V>, opts: SessionStoreOptions) {
    return session(name, false, keySerde, valueSerde, opts)
  },
  persistentSessionStore<K, V>(name: string, keySerde: Serde<K>, valueSerde: Serde<V>, opts: SessionStoreOptions) {
    return session(name, true, keySerde, valueSerde, opts)
  },
}

const STORE_NAME = /^[A-Za-z0-9._-]+$/

/** Throws StreamsError 'INVALID_NAME' unless `name` can name a changelog topic and a directory. */
export function checkName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || name.length === 0) {
    throw new StreamsError('INVALID_NAME', 'a state store needs a name (a non-empty string)')
  }
  if (!STORE_NAME.test(name) || name === '.' || name === '..' || name.length > 200) {
    throw new StreamsError(
      'INVALID_NAME',
      `state store name '${name}' must be 1-200 characters of [A-Za-z0-9._-] and not '.' or '..'`,
    )
  }
}

function layerOptions(opts: StoreOptions | undefined): LayerOptions {
  const cacheMaxBytes = opts?.cacheMaxBytes ?? DEFAULT_LAYER_OPTIONS.cacheMaxBytes
  if (!Number.isSafeInteger(cacheMaxBytes) || cacheMaxBytes < 0) {
    throw new StreamsError('INVALID_CONFIG', 'cacheMaxBytes must be an integer >= 0')
  }
  return {
    logging: opts?.logging ?? DEFAULT_LAYER_OPTIONS.logging,
    caching: opts?.caching ?? DEFAULT_LAYER_OPTIONS.caching,
    cacheMaxBytes,
  }
}
