/**
 * TEST FIXTURE (not a real store; the real ones are under src/state/): a tiny Map-backed
 * key-value store of string keys and integer values, enough for the runtime's tests. Every put
 * is written through to the changelog the task gives it (no cache). With `persistent` it keeps
 * a JSON copy of its map in its task directory, written on flush() and read on init(), so a
 * restart on the same state directory shows the checkpointed restore (few records read) and a
 * restart on an empty one the full restore.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { ChangelogRecord, StateStore, StateStoreContext } from '../../state/store-types.js'

export class MapCountStore implements StateStore {
  private readonly map = new Map<string, number>()
  private context: StateStoreContext | undefined
  private open = false
  /** Records applied by restoreBatch (what the tests read to see how much was restored). */
  restoredRecords = 0

  constructor(
    readonly name: string,
    readonly persistent: boolean,
  ) {}

  get isOpen(): boolean {
    return this.open
  }

  init(context: StateStoreContext): void {
    this.context = context
    this.open = true
    if (this.persistent && existsSync(this.file())) {
      const saved = JSON.parse(readFileSync(this.file(), 'utf8')) as Record<string, number>
      for (const [k, v] of Object.entries(saved)) this.map.set(k, v)
    }
  }

  get(key: string): number | undefined {
    return this.map.get(key)
  }

  put(key: string, value: number): void {
    this.map.set(key, value)
    this.context?.changelog?.send({ key: Buffer.from(key), value: Buffer.from(String(value)), timestamp: Date.now() })
  }

  entries(): Map<string, number> {
    return new Map(this.map)
  }

  restoreBatch(records: readonly ChangelogRecord[]): void {
    for (const r of records) {
      const key = r.key.toString()
      if (r.value === null) this.map.delete(key)
      else this.map.set(key, Number(r.value.toString()))
    }
    this.restoredRecords += records.length
  }

  flush(): void {
    if (this.persistent && this.open) writeFileSync(this.file(), JSON.stringify(Object.fromEntries(this.map)))
  }

  close(): void {
    this.open = false
  }

  private file(): string {
    return join(this.context!.stateDir, `${this.name}.json`)
  }
}
