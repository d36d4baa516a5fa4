/**
 * What the config topic says, applied record by record: each connector's config, its target
 * state, and its task configs once the connector committed a set of them. The record keys and
 * values are Kafka Connect's (`connector-<name>`, `task-<name>-<n>`, `commit-<name>`,
 * `target-state-<name>`), so a person reading the topic with any Kafka tool recognises them.
 * Task configs become visible only with their `commit-<name>` record: a worker that died while
 * writing a new set leaves the old set in force.
 *
 * `create-claim-<name>` ({"token", "at"}) is Sluice's own: POST /connectors writes one before
 * the connector record, and of the claims on an absent name the first in the topic wins, so two
 * workers creating the same name at once agree which one answers 201 and which 409 (Kafka
 * routes creates through the group leader instead). A claim its writer never followed with the
 * connector holds the name for CREATE_CLAIM_MS. Kafka Connect's own readers skip the key.
 */
import type { ConnectorConfig } from '../api/config-def.js'

export type TargetState = 'STARTED' | 'PAUSED' | 'STOPPED'

export interface ConnectorState {
  readonly name: string
  readonly config: ConnectorConfig
  readonly targetState: TargetState
  /** The committed task configs (empty until the connector's first commit, and when STOPPED). */
  readonly tasks: readonly ConnectorConfig[]
}

/** How long a create claim holds a name for its writer: a writer that died releases it so. */
export const CREATE_CLAIM_MS = 30_000

export const configKeys = {
  createClaim: (name: string) => `create-claim-${name}`,
  connector: (name: string) => `connector-${name}`,
  task: (name: string, n: number) => `task-${name}-${n}`,
  commit: (name: string) => `commit-${name}`,
  targetState: (name: string) => `target-state-${name}`,
}

interface Mutable {
  config: ConnectorConfig
  targetState: TargetState
  tasks: ConnectorConfig[]
  pending: Map<number, ConnectorConfig>
}

export class ConfigState {
  private readonly connectors = new Map<string, Mutable>()
  /** Target states written before (or without) the connector's own record. */
  private readonly orphanTargets = new Map<string, TargetState>()
  /** Records applied so far: assignments name the count they were computed from. */
  private applied = 0
  private readonly listeners: Array<(name: string) => void> = []
  /** Names being created: the claim that holds each (create-claim-<name>). */
  private readonly claims = new Map<string, { token: string; atMs: number }>()

  /** Called with the connector's name after each change that concerns it. */
  onChange(fn: (name: string) => void): void {
    this.listeners.push(fn)
  }

  get version(): number {
    return this.applied
  }

  names(): string[] {
    return [...this.connectors.keys()].sort()
  }

  /** The token of the claim that holds `name` for its creation, if one does. */
  claimOf(name: string): string | undefined {
    return this.claims.get(name)?.token
  }

  get(name: string): ConnectorState | undefined {
    const c = this.connectors.get(name)
    return c === undefined ? undefined : { name, config: c.config, targetState: c.targetState, tasks: c.tasks }
  }

  /** Applies one record of the config topic; records it cannot read are ignored (and counted). */
  apply(keyBytes: Buffer | null, valueBytes: Buffer | null): void {
    this.applied++
    if (keyBytes === null) return
    const key = keyBytes.toString('utf8')
    let value: Record<string, unknown> | null = null
    if (valueBytes !== null) {
      try {
        value = JSON.parse(valueBytes.toString('utf8')) as Record<string, unknown>
      } catch {
        return
      }
    }
    const changed = this.applyParsed(key, value)
    if (changed !== undefined) for (const fn of this.listeners) fn(changed)
  }

  private applyParsed(key: string, value: Record<string, unknown> | null): string | undefined {
    if (key.startsWith('create-claim-')) {
      this.applyClaim(key.slice('create-claim-'.length), value)
      return undefined
    }
    if (key.startsWith('connector-')) {
      const name = key.slice('connector-'.length)
      this.claims.delete(name)
      if (value === null) {
        this.connectors.delete(name)
        this.orphanTargets.delete(name)
        return name
      }
      const config = stringMap(value.properties)
      const existing = this.connectors.get(name)
      if (existing !== undefined) existing.config = config
      else {
        const targetState = this.orphanTargets.get(name) ?? 'STARTED'
        this.orphanTargets.delete(name)
        this.connectors.set(name, { config, targetState, tasks: [], pending: new Map() })
      }
      return name
    }
    if (key.startsWith('target-state-')) {
      const name = key.slice('target-state-'.length)
      const state = value?.state
      if (state !== 'STARTED' && state !== 'PAUSED' && state !== 'STOPPED') return undefined
      const c = this.connectors.get(name)
      if (c === undefined) {
        this.orphanTargets.set(name, state)
        return undefined
      }
      c.targetState = state
      if (state === 'STOPPED') c.tasks = []
      return name
    }
    if (key.startsWith('commit-')) {
      const name = key.slice('commit-'.length)
      const c = this.connectors.get(name)
      const count = value?.tasks
      if (c === undefined || typeof count !== 'number') return undefined
      const tasks: ConnectorConfig[] = []
      for (let i = 0; i < count; i++) {
        const t = c.pending.get(i)
        // An incomplete set: keep the one in force.
        if (t === undefined) return undefined
        tasks.push(t)
      }
      c.tasks = tasks
      c.pending.clear()
      return name
    }
    if (key.startsWith('task-')) {
      const m = /^task-(.+)-(\d+)$/.exec(key)
      if (m === null) return undefined
      const c = this.connectors.get(m[1]!)
      if (c === undefined || value === null) return undefined
      c.pending.set(Number(m[2]), stringMap(value.properties))
      return undefined
    }
    return undefined
  }

  /** The first claim on an absent name holds it, until the connector comes or the claim is stale. */
  private applyClaim(name: string, value: Record<string, unknown> | null): void {
    const token = value?.token
    const atMs = value?.at
    if (typeof token !== 'string' || typeof atMs !== 'number' || this.connectors.has(name)) return
    const held = this.claims.get(name)
    if (held === undefined || atMs - held.atMs > CREATE_CLAIM_MS) this.claims.set(name, { token, atMs })
  }
}

function stringMap(v: unknown): ConnectorConfig {
  const out: Record<string, string> = {}
  if (typeof v === 'object' && v !== null)
    for (const [k, x] of Object.entries(v)) if (x !== null && x !== undefined) out[k] = String(x)
  return out
}
