/**
 * The CLI's command contract: what every handler receives (the context and its parsed
 * arguments) and the handler table program.ts dispatches to. Its own file so the commands and
 * the commander wiring both depend on it and not on each other.
 */
import type { CliIo } from './output.js'
import type { AcksOption, CompressionOption } from './parse.js'

export interface CommandContext {
  readonly bootstrap: string[]
  readonly json: boolean
  readonly io: CliIo
}

export interface DevArgs {
  brokers: number
  dataDir: string
  port: number
  kafkaPort: number
  metadataPort: number
  logLevel?: string
  metadata?: 'embedded' | 'zookeeper'
  /** false with --no-console. */
  console: boolean
  consolePort: number
}
export interface ConnectArgs {
  groupId?: string
  restPort?: number
  restHost?: string
  workerConfig?: string
  configTopic?: string
  offsetsTopic?: string
  statusTopic?: string
  replicationFactor?: number
  logLevel?: string
  /** Connector config files (standalone mode); empty in distributed mode. */
  standalone: string[]
  /** Whether --bootstrap (or SLUICE_BOOTSTRAP) was given: it then wins over bootstrap.servers. */
  bootstrapGiven: boolean
}
export interface ConsoleArgs {
  port: number
  host?: string
  readOnly: boolean
  token?: string
  connectUrl?: string
}
export interface TopicsCreateArgs {
  partitions?: number
  replicationFactor?: number
  config: Record<string, string>
}
export interface TopicsDescribeArgs {
  configs?: boolean
  underReplicated?: boolean
}
export interface TopicsElectLeadersArgs {
  partition?: number
  unclean?: boolean
}
export interface TopicsAlterArgs {
  config: Record<string, string>
  deleteConfig: string[]
}
export interface TopicsDeleteRecordsArgs {
  partition: number
  beforeOffset: bigint | 'high-watermark'
}
export interface ProduceArgs {
  keySeparator?: string
  partition?: number
  acks: AcksOption
  compression: CompressionOption
}
export interface ConsumeArgs {
  partition?: number
  fromBeginning: boolean
  offset?: bigint
  fromTimestamp?: bigint
  maxMessages?: number
  follow: boolean
  printKey: boolean
  printOffset: boolean
}

export interface GroupsResetArgs {
  topic: string
  toEarliest?: boolean
  toLatest?: boolean
  toOffset?: bigint
  toTimestamp?: bigint
  shiftBy?: bigint
  execute: boolean
}

/** A handler resolves with the exit code (undefined = 0) or throws. */
export type Result = Promise<number | undefined>

export interface CommandHandlers {
  dev(args: DevArgs, io: CliIo): Result
  topicsCreate(ctx: CommandContext, name: string, args: TopicsCreateArgs): Result
  topicsList(ctx: CommandContext): Result
  topicsDescribe(ctx: CommandContext, name: string | undefined, args?: TopicsDescribeArgs): Result
  topicsAlter(ctx: CommandContext, name: string, args: TopicsAlterArgs): Result
  topicsDeleteRecords(ctx: CommandContext, name: string, args: TopicsDeleteRecordsArgs): Result
  topicsDelete(ctx: CommandContext, name: string): Result
  topicsAddPartitions(ctx: CommandContext, name: string, count: number): Result
  topicsElectLeaders(ctx: CommandContext, name: string | undefined, args: TopicsElectLeadersArgs): Result
  produce(ctx: CommandContext, topic: string, args: ProduceArgs): Result
  consume(ctx: CommandContext, topic: string, args: ConsumeArgs): Result
  clusterDescribe(ctx: CommandContext): Result
  groupsList(ctx: CommandContext): Result
  groupsDescribe(ctx: CommandContext, group: string): Result
  groupsResetOffsets(ctx: CommandContext, group: string, args: GroupsResetArgs): Result
  groupsDelete(ctx: CommandContext, group: string): Result
  streamsDescribe(ctx: CommandContext, application: string): Result
  /** `sluice connect`: a Connect worker in this process until SIGINT/SIGTERM. */
  connect(ctx: CommandContext, args: ConnectArgs): Result
  /** `sluice console`: the web console in this process until SIGINT/SIGTERM. */
  console(ctx: CommandContext, args: ConsoleArgs): Result
  /** `sluice broker|metadata [flags]`: the flags go to the server untouched. */
  server(role: 'broker' | 'metadata', flags: string[]): Result
}
