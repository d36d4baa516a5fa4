/**
 * File source (Kafka's FileStreamSource): every line appended to `file` becomes a record of
 * `topic`, value a string, no key. The source partition is `{"filename": <file>}` and the source
 * offset `{"position": <byte offset after the line>}`, so a restarted task goes on after the
 * last line whose record was acknowledged. A line is emitted once its newline is there.
 */
import { open, type FileHandle } from 'node:fs/promises'
import { setTimeout as delay } from 'node:timers/promises'
import type { ConfigField, ConnectorConfig } from '../../api/config-def.js'
import { parseConfig } from '../../api/config-def.js'
import type { SourceConnector, SourceTask, SourceTaskContext } from '../../api/connector.js'
import type { SourceRecord } from '../../api/records.js'

const CONFIG: readonly ConfigField[] = [
  { name: 'file', type: 'string', doc: 'The file to read lines from.' },
  { name: 'topic', type: 'string', doc: 'The topic to write each line to.', check: nonEmpty },
  { name: 'batch.size', type: 'int', default: '2000', doc: 'Most lines one poll returns.', check: positive },
]

function nonEmpty(v: unknown): string | undefined {
  return v === '' ? 'must not be empty' : undefined
}

function positive(v: unknown): string | undefined {
  return typeof v === 'number' && v > 0 ? undefined : 'must be at least 1'
}

const READ_CHUNK = 64 * 1024
const IDLE_WAIT_MS = 100

export class FileSourceConnector implements SourceConnector {
  readonly kind = 'source'
  readonly version = '1.0.0'
  readonly configDef = CONFIG
  private config: ConnectorConfig = {}

  start(config: ConnectorConfig): void {
    parseConfig(CONFIG, config)
    this.config = config
  }

  /** One file, one task. */
  taskConfigs(): ConnectorConfig[] {
    return [{ ...this.config }]
  }

  stop(): void {}

  createTask(): SourceTask {
    return new FileSourceTask()
  }
}

class FileSourceTask implements SourceTask {
  private file = ''
  private topic = ''
  private batchSize = 2000
  private handle: FileHandle | undefined
  private position = 0
  /** Bytes read after the last newline. */
  private partial = Buffer.alloc(0)

  async start(config: ConnectorConfig, ctx: SourceTaskContext): Promise<void> {
    const c = parseConfig(CONFIG, config)
    this.file = c.file as string
    this.topic = c.topic as string
    this.batchSize = c['batch.size'] as number
    const stored = await ctx.offsetOf({ filename: this.file })
    const pos = stored?.position
    this.position = typeof pos === 'number' && pos >= 0 ? pos : 0
  }

  async poll(signal: AbortSignal): Promise<SourceRecord[]> {
    if (this.handle === undefined) {
      try {
        this.handle = await open(this.file, 'r')
      } catch (err) {
        // Not there yet: Kafka's source waits for it too.
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
          await delay(IDLE_WAIT_MS, undefined, { signal }).catch(() => {})
          return []
        }
        throw err
      }
    }
    const records: SourceRecord[] = []
    const buf = Buffer.allocUnsafe(READ_CHUNK)
    while (records.length < this.batchSize) {
      const readAt = this.position + this.partial.length
      const { bytesRead } = await this.handle.read(buf, 0, READ_CHUNK, readAt)
      if (bytesRead === 0) break
      let data = Buffer.concat([this.partial, buf.subarray(0, bytesRead)])
      let nl = data.indexOf(10)
      while (nl >= 0 && records.length < this.batchSize) {
        const end = nl > 0 && data[nl - 1] === 13 ? nl - 1 : nl
        const line = data.subarray(0, end).toString('utf8')
        this.position += nl + 1
        records.push({
          topic: this.topic,
          key: null,
          value: line,
          valueSchema: { type: 'string', optional: false },
          headers: [],
          sourcePartition: { filename: this.file },
          sourceOffset: { position: this.position },
        })
        data = data.subarray(nl + 1)
        nl = data.indexOf(10)
      }
      this.partial = Buffer.from(data)
      if (nl >= 0) {
        // batch.size reached with whole lines left: they are read again by the next poll.
        this.partial = Buffer.alloc(0)
        break
      }
    }
    if (records.length === 0) await delay(IDLE_WAIT_MS, undefined, { signal }).catch(() => {})
    return records
  }

  async stop(): Promise<void> {
    await this.handle?.close().catch(() => {})
    this.handle = undefined
  }
}
