/**
 * File sink (Kafka's FileStreamSink): each record's value is appended to `file` as one line
 * (strings as they are, other values as JSON, null as the word null). flush() syncs the file
 * before the worker commits the records' offsets, so every committed record is on disk.
 */
import { open, type FileHandle } from 'node:fs/promises'
import type { ConfigField, ConnectorConfig } from '../../api/config-def.js'
import { parseConfig } from '../../api/config-def.js'
import type { SinkConnector, SinkTask } from '../../api/connector.js'
import type { SinkRecord } from '../../api/records.js'

const CONFIG: readonly ConfigField[] = [
  { name: 'file', type: 'string', doc: 'The file to append each record value to, one per line.' },
  {
    name: 'topics',
    type: 'list',
    doc: 'The topics to read.',
    check: (v) => (Array.isArray(v) && v.length > 0 ? undefined : 'name at least one topic'),
  },
]

export class FileSinkConnector implements SinkConnector {
  readonly kind = 'sink'
  readonly version = '1.0.0'
  readonly configDef = CONFIG
  private config: ConnectorConfig = {}

  start(config: ConnectorConfig): void {
    parseConfig(CONFIG, config)
    this.config = config
  }

  /** One file, one writer. */
  taskConfigs(): ConnectorConfig[] {
    return [{ ...this.config }]
  }

  stop(): void {}

  createTask(): SinkTask {
    return new FileSinkTask()
  }
}

export function lineOf(value: unknown): string {
  if (value === null || value === undefined) return 'null'
  if (typeof value === 'string') return value
  if (Buffer.isBuffer(value)) return value.toString('utf8')
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))
}

class FileSinkTask implements SinkTask {
  private handle: FileHandle | undefined
  private pending: string[] = []

  async start(config: ConnectorConfig): Promise<void> {
    const c = parseConfig(CONFIG, config)
    this.handle = await open(c.file as string, 'a')
  }

  put(records: readonly SinkRecord[]): void {
    for (const r of records) this.pending.push(`${lineOf(r.value)}\n`)
  }

  async flush(): Promise<void> {
    if (this.pending.length > 0) {
      const text = this.pending.join('')
      this.pending = []
      await this.handle!.write(text)
    }
    await this.handle!.sync()
  }

  async stop(): Promise<void> {
    await this.handle?.close().catch(() => {})
    this.handle = undefined
  }
}
