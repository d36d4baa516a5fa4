/**
 * Connector and task statuses as the status topic holds them (Kafka Connect's keys
 * `status-connector-<name>` and `status-task-<name>-<id>`, values
 * `{"state", "trace", "worker_id", "generation"}`), so every worker can answer GET …/status
 * for connectors it does not run. A newer generation wins over an older one.
 */
export type ConnectState = 'UNASSIGNED' | 'RUNNING' | 'PAUSED' | 'FAILED' | 'STOPPED' | 'RESTARTING'

export interface Status {
  readonly state: ConnectState
  readonly trace?: string
  readonly worker_id: string
  readonly generation: number
}

export const statusKeys = {
  connector: (name: string) => `status-connector-${name}`,
  task: (name: string, id: number) => `status-task-${name}-${id}`,
}

export class StatusState {
  private readonly connectors = new Map<string, Status>()
  private readonly tasks = new Map<string, Map<number, Status>>()

  apply(keyBytes: Buffer | null, valueBytes: Buffer | null): void {
    if (keyBytes === null) return
    const key = keyBytes.toString('utf8')
    let status: Status | null = null
    if (valueBytes !== null) {
      try {
        status = JSON.parse(valueBytes.toString('utf8')) as Status
      } catch {
        return
      }
    }
    const task = /^status-task-(.+)-(\d+)$/.exec(key)
    if (task !== null) {
      const name = task[1]!
      const id = Number(task[2])
      const m = this.tasks.get(name) ?? new Map<number, Status>()
      if (status === null) m.delete(id)
      else if ((m.get(id)?.generation ?? -1) <= status.generation) m.set(id, status)
      this.tasks.set(name, m)
      return
    }
    if (key.startsWith('status-connector-')) {
      const name = key.slice('status-connector-'.length)
      if (status === null) this.connectors.delete(name)
      else if ((this.connectors.get(name)?.generation ?? -1) <= status.generation) this.connectors.set(name, status)
    }
  }

  connector(name: string): Status | undefined {
    return this.connectors.get(name)
  }

  task(name: string, id: number): Status | undefined {
    return this.tasks.get(name)?.get(id)
  }

  /** Forgets a deleted connector's statuses. */
  forget(name: string): void {
    this.connectors.delete(name)
    this.tasks.delete(name)
  }
}
