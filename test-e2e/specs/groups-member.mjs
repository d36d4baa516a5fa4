// A consumer-group member as its own process, for the groups-*.e2e tests: joins GROUP, consumes
// TOPIC and prints one JSON line per event on stdout (ready, assigned, revoked, lost, message,
// commit). Plain JavaScript on purpose: node runs it directly against the built @sluice/client.
//
// env: BOOTSTRAP (host:port,...), GROUP, TOPIC, SESSION_MS, HEARTBEAT_MS, MAX_POLL_MS,
//      MODE = normal | stuck (never returns from the first message's callback),
//      ZOMBIE_COMMIT = 1: on SIGCONT commit offset 0 for every partition it believes it owns.
import { connect } from '@sluice/client'

const env = process.env
const print = (event) => {
  process.stdout.write(`${JSON.stringify(event)}\n`)
}
const tps = (list) => list.map((tp) => `${tp.topic}:${tp.partition}`)

// What the member was last told it owns (a lost generation does not change what a zombie believes).
let believed = []
const client = await connect({
  bootstrap: env.BOOTSTRAP.split(','),
  clientId: env.CLIENT_ID ?? 'e2e-member',
  retry: { retries: 20, initialBackoffMs: 100, maxBackoffMs: 1000 },
})
const consumer = client.consumer({
  groupId: env.GROUP,
  sessionTimeoutMs: Number(env.SESSION_MS ?? 6000),
  heartbeatIntervalMs: Number(env.HEARTBEAT_MS ?? 500),
  maxPollIntervalMs: Number(env.MAX_POLL_MS ?? 30000),
  autoOffsetReset: 'earliest',
  autoCommitIntervalMs: 200,
  maxWaitMs: 200,
  rebalanceListener: {
    onPartitionsAssigned: (list) => {
      believed = [...believed, ...list]
      print({ event: 'assigned', partitions: tps(list), generation: consumer.groupMetadata().generationId })
    },
    onPartitionsRevoked: (list) => {
      believed = believed.filter((b) => !list.some((tp) => tp.topic === b.topic && tp.partition === b.partition))
      print({ event: 'revoked', partitions: tps(list) })
    },
    onPartitionsLost: (list) => {
      print({ event: 'lost', partitions: tps(list) })
    },
  },
})
consumer.subscribe({ topics: [env.TOPIC] })

if (env.ZOMBIE_COMMIT === '1') {
  process.on('SIGCONT', () => {
    const owned = believed
    consumer.commit(owned.map((tp) => ({ ...tp, offset: 0n }))).then(
      () => {
        print({ event: 'commit', ok: true, partitions: tps(owned) })
      },
      (err) => {
        print({ event: 'commit', ok: false, code: err.code, message: err.message, partitions: tps(owned) })
      },
    )
  })
}

let stuck = false
const run = consumer.run({
  eachMessage: async ({ message }) => {
    print({
      event: 'message',
      partition: message.partition,
      offset: message.offset.toString(),
      value: message.value?.toString() ?? null,
    })
    if (env.MODE === 'stuck' && !stuck) {
      stuck = true
      print({ event: 'stuck' })
      await new Promise(() => {}) // never polls again
    }
  },
})
print({ event: 'ready', pid: process.pid })

const shutdown = async () => {
  await run.stop()
  await client.close()
  print({ event: 'closed' })
  process.exit(0)
}
process.on('SIGTERM', () => {
  void shutdown()
})
run.done.catch((err) => {
  print({ event: 'failed', code: err.code, message: err.message })
  process.exit(2)
})
