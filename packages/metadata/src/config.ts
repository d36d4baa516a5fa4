/**
 * The metadata service's process config: one zod schema, read from the three layers of
 * loadConfigLayers (JSON file, SLUICE_* env, --kebab-case flags). Every violation is reported,
 * not just the first.
 */
import { z } from 'zod'
import { loadConfigLayers } from '@sluice/server-kit'

/** Integers arrive as strings from env and flags, as numbers from the JSON file. */
const int = (min: number, max: number) =>
  z.preprocess(
    (v) => (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v) ? Number(v) : v),
    z.number().int().min(min).max(max),
  )

export const metadataConfigSchema = z
  .object({
    host: z
      .string()
      .min(1)
      .default('127.0.0.1')
      .describe('Interface to listen on, and the host in the advertised endpoint unless advertisedHost is set.'),
    advertisedHost: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Host that brokers and clients use to reach this instance (its /controller and /metadata_instances entries); default: host (127.0.0.1 for a wildcard host).',
      ),
    port: int(0, 65535).default(9091).describe('gRPC port; 0 = ephemeral (tests). Restart: yes'),
    dataDir: z
      .string()
      .min(1)
      .optional()
      .describe('Directory of the embedded store (journal + snapshot); required when store is embedded.'),
    store: z
      .enum(['embedded', 'zookeeper'])
      .default('embedded')
      .describe('Where the metadata tree lives: in this process (embedded) or in a ZooKeeper ensemble. Restart: yes'),
    zkConnect: z
      .string()
      .min(1)
      .regex(/^[^/]+$/, 'host:port[,host:port...] without a chroot (use zkChroot)')
      .optional()
      .describe('ZooKeeper connect string, host:port[,host:port...]; required when store is zookeeper.'),
    zkChroot: z
      .string()
      .regex(/^\/(?:[^/]+(?:\/[^/]+)*)?$/, 'an absolute znode path such as /sluice/prod')
      .default('/sluice')
      .describe("Znode under which this cluster's tree lives, so several clusters can share one ensemble."),
    zkSessionTimeoutMs: int(4000, 600_000)
      .default(6000)
      .describe(
        "The metadata service's ZooKeeper session timeout (the server clamps it to [2, 20] x tickTime): how long an instance may be silent before it loses controllership; a standby takes over after about this long.",
      ),
    controllerId: int(0, 2_147_483_647)
      .default(3000)
      .describe(
        "This instance's id in the controller election (/controller, /metadata_instances); distinct per instance sharing a ZooKeeper tree.",
      ),
    defaultNumPartitions: int(1, 1_000_000)
      .default(1)
      .describe('Partitions of a topic created with num_partitions -1.'),
    defaultReplicationFactor: int(1, 32767)
      .default(1)
      .describe('Replication factor of a topic created with replication_factor -1.'),
    brokerSessionTimeoutMs: int(50, 600_000)
      .default(9000)
      .describe('A broker without heartbeats for this long is lost (unless it asks for its own timeout).'),
    maxPartitionsPerTopic: int(1, 1_000_000).default(10_000).describe('Upper bound on partitions per topic.'),
    // Group coordinator (Kafka's group.* and offsets.* settings; group/group-config.ts checks them together).
    groupMinSessionTimeoutMs: int(1, 86_400_000)
      .default(6000)
      .describe('group.min.session.timeout.ms: smaller session timeouts get INVALID_SESSION_TIMEOUT.'),
    groupMaxSessionTimeoutMs: int(1, 86_400_000).default(1_800_000).describe('group.max.session.timeout.ms.'),
    groupInitialRebalanceDelayMs: int(0, 600_000)
      .default(3000)
      .describe(
        'group.initial.rebalance.delay.ms: the first rebalance of an empty group waits this long for more joiners.',
      ),
    offsetsTopicNumPartitions: int(1, 1000)
      .default(10)
      .describe('offsets.topic.num.partitions, used when __consumer_offsets is created.'),
    offsetsTopicReplicationFactor: int(1, 32767)
      .default(3)
      .describe('offsets.topic.replication.factor (capped at the live brokers).'),
    offsetsRetentionMinutes: int(1, 525_600_00)
      .default(10_080)
      .describe('offsets.retention.minutes: offsets of an empty group expire this long after it became empty.'),
    adminPort: int(0, 65535)
      .optional()
      .describe('Port of the admin HTTP server (/metrics, /healthz, /readyz); unset = no admin server, 0 = ephemeral.'),
    adminHost: z.string().min(1).optional().describe('Address the admin server listens on (default: host).'),
    logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  })
  .strict()

export type MetadataConfig = z.infer<typeof metadataConfigSchema>

export const METADATA_CONFIG_KEYS: readonly string[] = Object.keys(metadataConfigSchema.shape)

export type ParsedConfig = { ok: true; config: MetadataConfig } | { ok: false; problems: string[] }

export function parseMetadataConfig(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): ParsedConfig {
  const layered = loadConfigLayers({ argv, env, keys: METADATA_CONFIG_KEYS })
  const result = metadataConfigSchema.safeParse(layered.values)
  const problems = [...layered.problems]
  if (!result.success) {
    for (const issue of result.error.issues) {
      const where = issue.path.length > 0 ? issue.path.map(String).join('.') : '(config)'
      problems.push(`${where}: ${issue.message}`)
    }
  }
  // Cross-field requirements, checked on the raw layers so they are listed with the others.
  const raw = layered.values as Record<string, unknown>
  const store = result.success ? result.data.store : (raw.store ?? 'embedded')
  if (store === 'embedded' && raw.dataDir === undefined)
    problems.push('dataDir: Required (the embedded store keeps its journal and snapshot there)')
  if (store === 'zookeeper' && raw.zkConnect === undefined)
    problems.push('zkConnect: Required when store is zookeeper (host:port[,host:port...])')
  if (problems.length > 0 || !result.success) return { ok: false, problems }
  return { ok: true, config: result.data }
}
