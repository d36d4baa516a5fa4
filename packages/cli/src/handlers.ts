/** The real command implementations, as runCli expects them. */
import { connectWorker } from './commands/connect.js'
import { runConsole } from './commands/console.js'
import { consume } from './commands/consume.js'
import { runDev } from './commands/dev.js'
import { groupsDelete, groupsDescribe, groupsList, groupsResetOffsets } from './commands/groups.js'
import { produce } from './commands/produce.js'
import { runServerRole } from './commands/server.js'
import { streamsDescribe } from './commands/streams.js'
import {
  clusterDescribe,
  topicsAddPartitions,
  topicsAlter,
  topicsCreate,
  topicsDelete,
  topicsDeleteRecords,
  topicsDescribe,
  topicsElectLeaders,
  topicsList,
} from './commands/topics.js'
import type { CommandHandlers } from './command-types.js'

export const handlers: CommandHandlers = {
  dev: runDev,
  topicsCreate,
  topicsList,
  topicsDescribe,
  topicsDelete,
  topicsAddPartitions,
  topicsAlter,
  topicsDeleteRecords,
  topicsElectLeaders,
  produce,
  consume,
  clusterDescribe,
  groupsList,
  groupsDescribe,
  groupsResetOffsets,
  groupsDelete,
  streamsDescribe,
  connect: connectWorker,
  console: runConsole,
  server: runServerRole,
}
