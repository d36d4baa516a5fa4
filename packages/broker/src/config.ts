/**
 * The broker's node configuration: one zod schema, fed by the three layers of loadConfigLayers
 * (JSON file, SLUICE_* environment, --kebab-case flags). Layer values are strings (or the file's
 * JSON types), so numbers are coerced here. Every problem is collected and reported together.
 */
import { z } from 'zod'
import { loadConfigLayers } from '@sluice/protocol'

const endpoint = z.string().regex(/^[^\s:]+:\d{1,5}$/, 'must be host:port')

/** "a:1,b:2" from env/flags, or a JSON array from the file. */
const endpointList = z.preprocess(
  (v) => typeof v === 'string' ? v.split(',').map((s) => s.trim()).filter((s) => s !== '') : v,
  z.array(endpoint).min(1, 'at least one metadata endpoint (host:port) is required'))

const int = (min: number, max: number) => z.coerce.number().int().min(min).max(max)

export const brokerConfigSchema = z.object({
  brokerId: int(0, 2 ** 31 - 1).describe('This broker\'s id, unique in the cluster. Restart: yes'),
  host: z.string().min(1).default('0.0.0.0').describe('Address to listen on'),
  port: int(0, 65535).default(9092).describe('Port to listen on; 0 = ephemeral (tests)'),
  dataDir: z.string().min(1).describe('Directory holding the partition logs'),
  metadataEndpoints: endpointList.describe('host:port of the metadata service instances, comma separated'),
  advertisedHost: z.string().min(1).optional().describe('Host clients should connect to (default: host, or 127.0.0.1 for 0.0.0.0)'),
  rack: z.string().optional(),
  sessionTimeoutMs: int(1000, 600_000).default(9000).describe('Metadata session timeout'),
  heartbeatIntervalMs: int(100, 60_000).default(2000).describe('Heartbeat interval to the metadata service'),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
}).refine((c) => c.heartbeatIntervalMs < c.sessionTimeoutMs, {
  message: 'heartbeatIntervalMs must be smaller than sessionTimeoutMs (a third of it is a good value)',
  path: ['heartbeatIntervalMs'],
})

export type BrokerConfig = z.infer<typeof brokerConfigSchema>

export const BROKER_CONFIG_KEYS: readonly string[] = Object.keys(brokerConfigSchema.shape)

export type BrokerConfigResult =
  | { ok: true, config: BrokerConfig }
  | { ok: false, problems: string[] }

/** Reads and validates the layers; lists every problem instead of stopping at the first. */
export function loadBrokerConfig (argv: readonly string[], env: Readonly<Record<string, string | undefined>>): BrokerConfigResult {
  const layers = loadConfigLayers({ argv, env, keys: BROKER_CONFIG_KEYS })
  const problems = [...layers.problems]
  const parsed = brokerConfigSchema.safeParse(layers.values)
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = issue.path.join('.')
      problems.push(path === '' ? issue.message : `${path}: ${issue.message}`)
    }
  }
  if (problems.length > 0 || !parsed.success) return { ok: false, problems }
  return { ok: true, config: parsed.data }
}
