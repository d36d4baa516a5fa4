/**
 * The `sluice` command line: commander wiring only. Every command's work lives in a handler
 * (commands/*.ts), injected so tests can check argument parsing without a cluster. `runCli`
 * never throws and never calls process.exit: it returns the exit code, after printing
 * `error: <CODE>: <message>` for failures (no stack trace for operating errors).
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander'
import type {
  CommandContext,
  CommandHandlers,
  ConnectArgs,
  ConsoleArgs,
  ConsumeArgs,
  DevArgs,
  GroupsResetArgs,
  ProduceArgs,
  Result,
  TopicsAlterArgs,
  TopicsCreateArgs,
  TopicsDeleteRecordsArgs,
  TopicsDescribeArgs,
  TopicsElectLeadersArgs,
} from './command-types.js'
import { UsageError, formatError, type CliIo } from './output.js'
import {
  DEFAULT_BOOTSTRAP,
  intParser,
  parseAcks,
  parseBootstrap,
  parseCompression,
  parseConfigPair,
  parseOffset,
  parsePort,
  parseSeparator,
  parseTimestamp,
  type AcksOption,
  type CompressionOption,
} from './parse.js'

export type { CommandContext, CommandHandlers } from './command-types.js'

export function buildProgram(io: CliIo, handlers: CommandHandlers, setExitCode: (code: number) => void): Command {
  const program = new Command('sluice')
    .description('Sluice: a distributed streaming platform in the Apache Kafka model')
    // Not Option.env(): commander would read process.env, and the env must come from `io`.
    .addOption(
      new Option(
        '--bootstrap <host:port,...>',
        `brokers to bootstrap from (env: SLUICE_BOOTSTRAP, default: ${DEFAULT_BOOTSTRAP})`,
      ).argParser(parseBootstrap),
    )
    .option('--json', 'print machine-readable JSON instead of tables', false)
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({
      writeOut: (s) => {
        io.stdout.write(s)
      },
      writeErr: (s) => {
        io.stderr.write(s)
      },
    })
  const ctx = (cmd: Command): CommandContext => {
    const o = cmd.optsWithGlobals<{ bootstrap?: string[]; json: boolean }>()
    return { bootstrap: o.bootstrap ?? bootstrapFromEnv(io.env), json: o.json, io }
  }
  const done = async (result: Result): Promise<void> => {
    const code = await result
    setExitCode(typeof code === 'number' ? code : 0)
  }

  program
    .command('dev')
    .description('run a local cluster (1 metadata service + N brokers as processes) until Ctrl-C')
    .option('--brokers <n>', 'number of brokers', intParser(1, 64), 3)
    .option('--data-dir <dir>', 'data directory (relative to the current directory)', './.sluice/dev')
    .option('--port <port>', 'gRPC port of broker 1 (broker i listens on port + i - 1)', parsePort, 9192)
    .option(
      '--kafka-port <port>',
      'Kafka listener port of broker 1 (broker i listens on kafka-port + i - 1)',
      parsePort,
      9092,
    )
    .option('--metadata-port <port>', 'port of the metadata service', parsePort, 9091)
    .option('--console-port <port>', 'port of the web console (a free one when taken)', parsePort, 8080)
    .option('--no-console', 'do not start the web console')
    .addOption(
      new Option('--log-level <level>', 'log level of the servers').choices([
        'fatal',
        'error',
        'warn',
        'info',
        'debug',
        'trace',
      ]),
    )
    .addOption(
      new Option(
        '--metadata <store>',
        'where the metadata tree lives: embedded (default) or a local ZooKeeper (needs ZooKeeper installed)',
      ).choices(['embedded', 'zookeeper']),
    )
    .action(async (opts: DevArgs) => {
      await done(handlers.dev(opts, io))
    })

  const topics = program.command('topics').description('create, list, describe and delete topics')
  topics
    .command('create <name>')
    .description('create a topic')
    .option('--partitions <n>', 'number of partitions (default: the cluster default)', intParser(1, 1_000_000))
    .option('--replication-factor <n>', 'replicas per partition (default: the cluster default)', intParser(1, 1000))
    .option('--config <key=value>', 'topic config override, repeatable', parseConfigPair, {})
    .action(async (name: string, opts: TopicsCreateArgs, cmd: Command) => {
      await done(handlers.topicsCreate(ctx(cmd), name, opts))
    })
  topics
    .command('list')
    .description('list topics')
    .action(async (_opts: unknown, cmd: Command) => {
      await done(handlers.topicsList(ctx(cmd)))
    })
  topics
    .command('describe [name]')
    .description(
      'partitions, leaders, replicas and ISR of one topic or all; --configs: every effective config and its source',
    )
    .option('--configs', 'show the topic configs (value and source: default or topic) instead of partitions', false)
    .option(
      '--under-replicated',
      'only partitions whose ISR is smaller than their replica set (or that have no leader)',
      false,
    )
    .action(async (name: string | undefined, opts: TopicsDescribeArgs, cmd: Command) => {
      const wanted = opts.configs === true || opts.underReplicated === true
      await done(wanted ? handlers.topicsDescribe(ctx(cmd), name, opts) : handlers.topicsDescribe(ctx(cmd), name))
    })
  topics
    .command('elect-leaders [name]')
    .description('move leadership back to preferred replicas (all topics, one topic, or one partition)')
    .option('--partition <n>', 'only this partition (needs a topic name)', intParser(0, 1_000_000))
    .option('--unclean', 'elect any live replica for partitions without a leader (may lose data)', false)
    .action(async (name: string | undefined, opts: TopicsElectLeadersArgs, cmd: Command) => {
      if (opts.partition !== undefined && name === undefined) throw new UsageError('--partition needs a topic name')
      await done(handlers.topicsElectLeaders(ctx(cmd), name, opts))
    })
  topics
    .command('alter <name>')
    .description('change topic configs at run time (brokers apply them without a restart)')
    .option('--config <key=value>', 'set a topic config override, repeatable', parseConfigPair, {})
    .option(
      '--delete-config <key>',
      'remove an override (back to the default), repeatable',
      (v: string, prev: string[]) => [...prev, v],
      [] as string[],
    )
    .action(async (name: string, opts: TopicsAlterArgs, cmd: Command) => {
      await done(handlers.topicsAlter(ctx(cmd), name, opts))
    })
  topics
    .command('delete-records <name>')
    .description('delete the records of a partition below an offset (moves its log start offset)')
    .requiredOption('--partition <n>', 'the partition', intParser(0, 1_000_000))
    .requiredOption(
      '--before-offset <n|hw>',
      'records below this offset go; "hw" = everything readable',
      (v: string) => (v.trim() === 'hw' ? ('high-watermark' as const) : parseOffset(v)),
    )
    .action(async (name: string, opts: TopicsDeleteRecordsArgs, cmd: Command) => {
      await done(handlers.topicsDeleteRecords(ctx(cmd), name, opts))
    })
  topics
    .command('delete <name>')
    .description('delete a topic and its data')
    .action(async (name: string, _opts: unknown, cmd: Command) => {
      await done(handlers.topicsDelete(ctx(cmd), name))
    })
  topics
    .command('add-partitions <name>')
    .description('grow a topic to --count partitions in total')
    .requiredOption('--count <n>', 'the new total number of partitions', intParser(1, 1_000_000))
    .action(async (name: string, opts: { count: number }, cmd: Command) => {
      await done(handlers.topicsAddPartitions(ctx(cmd), name, opts.count))
    })

  program
    .command('produce <topic>')
    .description('send stdin to a topic, one record per line')
    .option('--key-separator <sep>', 'split each line into key<sep>value', parseSeparator)
    .option('--partition <n>', 'send every record to this partition', intParser(0, 1_000_000))
    .addOption(
      new Option('--acks <acks>', 'acknowledgement level: 0, 1 or all')
        .default('all' as AcksOption, 'all')
        .argParser(parseAcks),
    )
    .addOption(
      new Option('--compression <type>', 'none, gzip, snappy, lz4 or zstd')
        .default('none' as CompressionOption)
        .argParser(parseCompression),
    )
    .action(async (topic: string, opts: ProduceArgs, cmd: Command) => {
      await done(handlers.produce(ctx(cmd), topic, opts))
    })

  program
    .command('consume <topic>')
    .description('print records of a topic, one value per line; stops at the end offsets seen at start unless --follow')
    .option('--partition <n>', 'only this partition', intParser(0, 1_000_000))
    .addOption(
      new Option('--from-beginning', 'start at the earliest offset (the default without --follow)')
        .default(false)
        .conflicts(['offset', 'fromTimestamp']),
    )
    .addOption(new Option('--offset <n>', 'start at this offset').argParser(parseOffset).conflicts(['fromTimestamp']))
    .addOption(
      new Option('--from-timestamp <iso|ms>', 'start at the first record at or after this time').argParser(
        parseTimestamp,
      ),
    )
    .option('--max-messages <n>', 'stop after this many records', intParser(1))
    .option('--follow', 'keep waiting for new records until Ctrl-C (starts at the end unless told otherwise)', false)
    .option('--print-key', 'print the key before the value (tab-separated)', false)
    .option('--print-offset', 'print partition:offset before the record (tab-separated)', false)
    .action(async (topic: string, opts: ConsumeArgs, cmd: Command) => {
      await done(handlers.consume(ctx(cmd), topic, opts))
    })

  program
    .command('cluster')
    .description('cluster information')
    .command('describe')
    .description('cluster id, controller and brokers')
    .action(async (_opts: unknown, cmd: Command) => {
      await done(handlers.clusterDescribe(ctx(cmd)))
    })

  const groups = program
    .command('groups')
    .description('list, describe, reset the offsets of and delete consumer groups')
  groups
    .command('list')
    .description('list consumer groups and their states')
    .action(async (_opts: unknown, cmd: Command) => {
      await done(handlers.groupsList(ctx(cmd)))
    })
  groups
    .command('describe <group>')
    .description('state, members and their partitions, committed offsets, log end offsets and lag')
    .action(async (group: string, _opts: unknown, cmd: Command) => {
      await done(handlers.groupsDescribe(ctx(cmd), group))
    })
  const targets = ['toEarliest', 'toLatest', 'toOffset', 'toTimestamp', 'shiftBy']
  const others = (name: string): string[] => targets.filter((t) => t !== name)
  groups
    .command('reset-offsets <group>')
    .description("move an empty group's committed offsets for a topic (prints the plan; --execute applies it)")
    .requiredOption('--topic <topic>', 'the topic whose offsets move')
    .addOption(new Option('--to-earliest', 'to the log start').conflicts(others('toEarliest')))
    .addOption(new Option('--to-latest', 'to the log end').conflicts(others('toLatest')))
    .addOption(
      new Option('--to-offset <n>', 'to this offset (clamped into the log)')
        .argParser(parseOffset)
        .conflicts(others('toOffset')),
    )
    .addOption(
      new Option('--to-timestamp <iso|ms>', 'to the first record at or after this time')
        .argParser(parseTimestamp)
        .conflicts(others('toTimestamp')),
    )
    .addOption(
      new Option('--shift-by <n>', 'move by n (negative: back) from the committed offset')
        .argParser(parseShift)
        .conflicts(others('shiftBy')),
    )
    .option('--execute', 'commit the new offsets (default: dry run)', false)
    .action(async (group: string, opts: GroupsResetArgs, cmd: Command) => {
      await done(handlers.groupsResetOffsets(ctx(cmd), group, opts))
    })
  groups
    .command('delete <group>')
    .description('delete a group without members and its committed offsets')
    .action(async (group: string, _opts: unknown, cmd: Command) => {
      await done(handlers.groupsDelete(ctx(cmd), group))
    })

  const streams = program.command('streams').description('inspect streams applications (@sluice/streams)')
  streams
    .command('describe <application>')
    .description("the application's tasks, the instance running each (active, standby), their partitions and lag")
    .action(async (application: string, _opts: unknown, cmd: Command) => {
      await done(handlers.streamsDescribe(ctx(cmd), application))
    })

  program
    .command('connect')
    .description('run a Connect worker (Kafka Connect REST API) in this process until Ctrl-C')
    .argument('[connector-configs...]', 'with --standalone: connector config files (.properties or JSON) to run')
    .option('--group-id <id>', 'the Connect cluster this worker joins (group.id)')
    .option('--rest-port <port>', 'port of the REST API (rest.port)', parsePort)
    .option('--rest-host <host>', 'address the REST API listens on (default 127.0.0.1)')
    .option('--worker-config <file>', 'Kafka Connect worker properties (bootstrap.servers, group.id, ...); flags win')
    .option('--config-topic <topic>', 'connector configs (config.storage.topic, default connect-configs)')
    .option('--offsets-topic <topic>', 'source offsets (offset.storage.topic, default connect-offsets)')
    .option('--status-topic <topic>', 'statuses (status.storage.topic, default connect-status)')
    .option('--replication-factor <n>', "replication factor of those topics (default: the cluster's)", intParser(1, 16))
    .option('--standalone', 'run the connector config files given as arguments', false)
    .addOption(
      new Option('--log-level <level>', 'log level').choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace']),
    )
    .action(
      async (
        files: string[],
        opts: Omit<ConnectArgs, 'standalone' | 'bootstrapGiven'> & { standalone: boolean },
        cmd: Command,
      ) => {
        if (!opts.standalone && files.length > 0)
          throw new UsageError('connector config files are run with --standalone; in distributed mode use the REST API')
        if (opts.standalone && files.length === 0)
          throw new UsageError('--standalone needs at least one connector config file')
        const c = ctx(cmd)
        const bootstrapGiven = cmd.optsWithGlobals().bootstrap !== undefined || io.env.SLUICE_BOOTSTRAP !== undefined
        await done(handlers.connect(c, { ...opts, standalone: files, bootstrapGiven }))
      },
    )

  program
    .command('console')
    .description('run the web console (cluster, topics, messages, groups, connectors) until Ctrl-C')
    .option('--port <port>', 'HTTP port (0: a free one)', parsePort, 8080)
    .option('--host <host>', 'address to listen on (default 127.0.0.1; give a token before opening it wider)')
    .option(
      '--read-only',
      'refuse every change (create, produce, reset, delete, connector actions) on the server',
      false,
    )
    .option('--token <token>', 'require this access token on the API (env: SLUICE_CONSOLE_TOKEN)')
    .option('--connect-url <url>', 'REST URL of a Sluice Connect worker, for the connectors pages')
    .action(async (opts: ConsoleArgs, cmd: Command) => {
      await done(handlers.console(ctx(cmd), opts))
    })

  for (const role of ['broker', 'metadata'] as const) {
    // The server validates its own flags (and SLUICE_* env); commander only passes them on.
    program
      .command(role)
      .description(
        `run a ${role === 'broker' ? 'broker' : 'metadata service'} in this process until SIGTERM (flags: packages/${role}/src/config.ts, env SLUICE_<FLAG>)`,
      )
      .argument('[flags...]')
      .helpOption(false)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(async (_flags: string[], _opts: unknown, cmd: Command) => {
        await done(handlers.server(role, cmd.args))
      })
  }

  return program
}

/** A signed integer offset delta as a bigint. */
function parseShift(text: string): bigint {
  if (!/^[+-]?\d+$/.test(text.trim())) throw new InvalidArgumentError(`"${text}" is not an integer`)
  return BigInt(text.trim())
}

function bootstrapFromEnv(env: NodeJS.ProcessEnv): string[] {
  const text = env.SLUICE_BOOTSTRAP
  if (text === undefined || text.trim() === '') return [DEFAULT_BOOTSTRAP]
  try {
    return parseBootstrap(text)
  } catch (err) {
    throw new UsageError(`SLUICE_BOOTSTRAP: ${(err as Error).message}`)
  }
}

/** Parses argv (without node and script) and runs the command; resolves with the exit code. */
export async function runCli(argv: readonly string[], io: CliIo, handlers: CommandHandlers): Promise<number> {
  let exitCode = 0
  const program = buildProgram(io, handlers, (code) => {
    exitCode = code
  })
  try {
    await program.parseAsync([...argv], { from: 'user' })
    return exitCode
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version "errors" exit 0; commander already printed usage problems.
      return err.exitCode
    }
    io.stderr.write(formatError(err, { debug: io.env.SLUICE_DEBUG === '1' }))
    return 1
  }
}
