/** The real command implementations, as runCli expects them. */
import { consume } from './commands/consume.js'
import { runDev } from './commands/dev.js'
import { produce } from './commands/produce.js'
import {
  clusterDescribe, topicsAddPartitions, topicsCreate, topicsDelete, topicsDescribe, topicsList,
} from './commands/topics.js'
import type { CommandHandlers } from './program.js'

export const handlers: CommandHandlers = {
  dev: runDev,
  topicsCreate,
  topicsList,
  topicsDescribe,
  topicsDelete,
  topicsAddPartitions,
  produce,
  consume,
  clusterDescribe,
}
