// A streams application instance as its own process, for streams-crash.e2e.test.ts: a count
// per key (input -> groupByKey -> count into a logged store -> output) with @sluice/streams over
// the built packages. Prints `{"event":"started"}` once running and `{"event":"stopped",...}` if the app
// stops on an error. Plain JavaScript: node runs it directly.
//
// env: BOOTSTRAP (host:port,...), APP, INPUT, OUTPUT, STATE_DIR, SESSION_MS
import { Serdes, StreamsApp, StreamsBuilder } from '@sluice/streams'

const env = process.env
const print = (event) => process.stdout.write(`${JSON.stringify(event)}\n`)

const builder = new StreamsBuilder()
builder
  .stream(env.INPUT, { keySerde: Serdes.string(), valueSerde: Serdes.string() })
  .groupByKey()
  // No write cache: every update reaches the changelog at once, as a full cache does, so a kill
  // leaves changelog writes past the last commit.
  .count({ name: 'counts', caching: false })
  .toStream()
  .to(env.OUTPUT, { keySerde: Serdes.string(), valueSerde: Serdes.long() })

const app = new StreamsApp(builder.build(), {
  applicationId: env.APP,
  bootstrap: env.BOOTSTRAP.split(','),
  stateDir: env.STATE_DIR,
  commitIntervalMs: 300,
  sessionTimeoutMs: Number(env.SESSION_MS ?? 6000),
  heartbeatIntervalMs: 500,
})
await app.start()
print({ event: 'started' })
app.stopped().then((err) => {
  if (err !== undefined) print({ event: 'stopped', error: String(err.message) })
})
process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0))
})
