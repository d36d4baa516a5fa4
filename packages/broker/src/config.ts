/**
 * The broker's node configuration: one zod schema, fed by the three layers of loadConfigLayers
 * (JSON file, SLUICE_* environment, --kebab-case flags). Layer values are strings (or the file's
 * JSON types), so numbers are coerced here. Every problem is collected and reported together.
 */
import { z } from 'zod'
import { loadConfigLayers } from '@sluice/server-kit'

const endpoint = z.string().regex(/^[^\s:]+:\d{1,5}$/, 'must be host:port')

/** "a:1,b:2" from env/flags, or a JSON array from the file. */
const endpointList = z.preprocess(
  (v) =>
    typeof v === 'string'
      ? v
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '')
      : v,
  z.array(endpoint).min(1, 'at least one metadata endpoint (host:port) is required'),
)

/** "a,b" from env/flags, or a JSON array from the file: several data dirs (Kafka's log.dirs). */
const dirList = z.preprocess(
  (v) =>
    typeof v === 'string'
      ? v
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '')
      : v,
  z
    .array(z.string().min(1))
    .min(1, 'at least one directory')
    .refine((a) => new Set(a).size === a.length, 'a directory is listed twice'),
)

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max)

/**
 * "2=127.0.0.1:40001,3=127.0.0.1:40002" from env/flags, or a JSON object {"2": "host:port"} from
 * the file: broker id -> the address this broker dials for replication instead of the advertised
 * one (the e2e suite routes replica traffic through a TCP proxy this way).
 */
const connectOverrides = z.preprocess(
  (v) => {
    if (typeof v !== 'string') return v
    const out: Record<string, string> = {}
    for (const item of v
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '')) {
      const eq = item.indexOf('=')
      out[eq < 0 ? item : item.slice(0, eq).trim()] = eq < 0 ? '' : item.slice(eq + 1).trim()
    }
    return out
  },
  z.record(z.string().regex(/^\d{1,10}$/, 'keys must be broker ids'), endpoint),
)

export const brokerConfigSchema = z
  .object({
    brokerId: int(0, 2 ** 31 - 1).describe("This broker's id, unique in the cluster. Restart: yes"),
    host: z.string().min(1).default('0.0.0.0').describe('Address to listen on'),
    port: int(0, 65535)
      .default(9192)
      .describe("Port of Sluice's gRPC services (the SDK and the CLI connect here); 0 = ephemeral (tests)"),
    kafkaPort: int(0, 65535)
      .default(9092)
      .describe(
        "Port of the Kafka wire-protocol listener (Kafka's own port, for kcat, kafkajs, Java clients); 0 = ephemeral",
      ),
    kafkaHost: z.string().min(1).optional().describe('Address the Kafka listener listens on (default: host)'),
    dataDir: z
      .string()
      .min(1)
      .optional()
      .describe('Directory holding the partition logs (one data dir; Kafka log.dir)'),
    dataDirs: dirList
      .optional()
      .describe(
        'Several data dirs, comma separated (Kafka log.dirs); wins over dataDir. New partitions go to the dir with the fewest. Restart: yes',
      ),
    metadataEndpoints: endpointList.describe('host:port of the metadata service instances, comma separated'),
    advertisedHost: z
      .string()
      .min(1)
      .optional()
      .describe('Host clients should connect to (default: host, or 127.0.0.1 for 0.0.0.0)'),
    advertisedKafkaHost: z
      .string()
      .min(1)
      .optional()
      .describe('Host Kafka clients are told to connect to (default: advertisedHost, else kafkaHost by the same rule)'),
    advertisedKafkaPort: int(1, 65535)
      .optional()
      .describe('Port Kafka clients are told to connect to, e.g. behind a NAT or proxy (default: the bound kafkaPort)'),
    kafkaConnectionsMaxIdleMs: int(1000, 86_400_000)
      .default(600_000)
      .describe(
        'A Kafka connection with no request in flight and no bytes moving for this long is closed (connections.max.idle.ms)',
      ),
    rack: z.string().optional(),
    sessionTimeoutMs: int(1000, 600_000).default(9000).describe('Metadata session timeout'),
    heartbeatIntervalMs: int(100, 60_000).default(2000).describe('Heartbeat interval to the metadata service'),
    replicaLagMaxMs: int(10, 3_600_000)
      .default(30_000)
      .describe('A follower that has not caught up for this long leaves the ISR (replica.lag.time.max.ms)'),
    replicaFetchWaitMaxMs: int(0, 60_000)
      .default(500)
      .describe('Long-poll wait of follower fetches (replica.fetch.wait.max.ms)'),
    replicaFetchMinBytes: int(1, 64 * 1024 * 1024)
      .default(1)
      .describe('Minimum bytes a follower fetch waits for'),
    replicaFetchMaxBytes: int(1024, 64 * 1024 * 1024)
      .default(1024 * 1024)
      .describe('Per-partition byte limit of follower fetches'),
    highWatermarkCheckpointIntervalMs: int(10, 600_000)
      .default(5000)
      .describe('How often the replication-offset-checkpoint (high watermarks) is written'),
    replicaConnectOverrides: connectOverrides
      .default({})
      .describe(
        "broker id=host:port pairs dialled for replication instead of the advertised address (the peer's Kafka listener under replicaFetchTransport kafka)",
      ),
    replicaFetchTransport: z
      .enum(['kafka', 'grpc'])
      .default('kafka')
      .describe(
        "What followers fetch over: kafka = Kafka's Fetch on the leader's Kafka listener (a leader without one is fetched over gRPC), grpc = the gRPC Fetch stream",
      ),
    logRetentionCheckIntervalMs: int(10, 86_400_000)
      .default(300_000)
      .describe('How often retention, compaction and the log checkpoints run (log.retention.check.interval.ms)'),
    fileDeleteDelayMs: int(0, 86_400_000)
      .default(60_000)
      .describe('Delay before the files of a deleted segment are removed (file.delete.delay.ms)'),
    maxOpenFiles: int(16, 10_000_000)
      .optional()
      .describe(
        'Log files (segments and indexes) kept open at once, least recently used closed first; default: half of the open-file limit (ulimit -n), at most 65536',
      ),
    logCleanerDedupeBufferBytes: int(1024, 2 ** 31 - 1)
      .default(16 * 1024 * 1024)
      .describe("Memory of the log cleaner's key map, 24 bytes per key (log.cleaner.dedupe.buffer.size)"),
    adminPort: int(0, 65535)
      .optional()
      .describe('Port of the admin HTTP server (/metrics, /healthz, /readyz); unset = no admin server, 0 = ephemeral'),
    adminHost: z.string().min(1).optional().describe('Address the admin server listens on (default: host)'),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  })
  .refine((c) => c.dataDir !== undefined || c.dataDirs !== undefined, {
    message: 'a data dir is required: --data-dir <dir> or --data-dirs <dir1>,<dir2>',
    path: ['dataDir'],
  })
  .refine((c) => c.heartbeatIntervalMs < c.sessionTimeoutMs, {
    message: 'heartbeatIntervalMs must be smaller than sessionTimeoutMs (a third of it is a good value)',
    path: ['heartbeatIntervalMs'],
  })
  .refine((c) => c.replicaFetchWaitMaxMs < c.replicaLagMaxMs, {
    message:
      'replicaFetchWaitMaxMs must be smaller than replicaLagMaxMs (a caught-up follower waits that long per fetch)',
    path: ['replicaFetchWaitMaxMs'],
  })

export type BrokerConfig = z.infer<typeof brokerConfigSchema>

export const BROKER_CONFIG_KEYS: readonly string[] = Object.keys(brokerConfigSchema.shape)

export type BrokerConfigResult = { ok: true; config: BrokerConfig } | { ok: false; problems: string[] }

/** Reads and validates the layers; lists every problem instead of stopping at the first. */
export function loadBrokerConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): BrokerConfigResult {
  const layers = loadConfigLayers({ argv, env, keys: BROKER_CONFIG_KEYS })
  const problems = [...layers.problems]
  const parsed = brokerConfigSchema.safeParse(layers.values)
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = issue.path.join('.')
      problems.push(path === '' ? issue.message : `${path}: ${issue.message}`)
    }
    // zod skips the object's refinements while a field is invalid; the data-dir rule is listed anyway.
    const values = layers.values as Record<string, unknown>
    if (
      values.dataDir === undefined &&
      values.dataDirs === undefined &&
      !problems.some((p) => p.startsWith('dataDir'))
    ) {
      problems.push('dataDir: a data dir is required: --data-dir <dir> or --data-dirs <dir1>,<dir2>')
    }
  }
  if (problems.length > 0 || !parsed.success) return { ok: false, problems }
  return { ok: true, config: parsed.data }
}
