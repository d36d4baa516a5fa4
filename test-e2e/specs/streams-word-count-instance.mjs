// A word-count instance as its own process, for streams-repartition-crash.e2e.test.ts: lines ->
// flatMapValues(words) -> groupBy(word), which goes through the repartition topic
// `<APP>-words-repartition` -> count into a logged store -> output (Serdes.long()), with
// @sluice/streams over the built packages. Prints `{"event":"started"}` once running,
// `{"event":"metrics",...}` every 500 ms (duplicates skipped, the tasks it runs) and
// `{"event":"stopped",...}` if the app stops on an error. Plain JavaScript: node runs it directly.
//
// env: BOOTSTRAP (host:port,...), APP, INPUT, OUTPUT, STATE_DIR, SESSION_MS, COMMIT_MS (default 300)
import { Serdes, StreamsApp, StreamsBuilder } from '@sluice/streams'

const env = process.env
const print = (event) => process.stdout.write(`${JSON.stringify(event)}\n`)

const builder = new StreamsBuilder()
builder
  .stream(env.INPUT, { keySerde: Serdes.string(), valueSerde: Serdes.string() })
  .flatMapValues((line) => line.split(' '))
  .groupBy((_key, word) => word, { name: 'words', keySerde: Serdes.string(), valueSerde: Serdes.string() })
  // No write cache: every update reaches the changelog and the output at once.
  .count({ name: 'word-counts', caching: false })
  .toStream()
  .to(env.OUTPUT, { keySerde: Serdes.string(), valueSerde: Serdes.long() })

const app = new StreamsApp(builder.build(), {
  applicationId: env.APP,
  bootstrap: env.BOOTSTRAP.split(','),
  stateDir: env.STATE_DIR,
  commitIntervalMs: Number(env.COMMIT_MS ?? 300),
  sessionTimeoutMs: Number(env.SESSION_MS ?? 6000),
  heartbeatIntervalMs: 500,
})
await app.start()
print({ event: 'started' })
setInterval(() => {
  const m = app.metrics()
  print({
    event: 'metrics',
    processed: m.processed,
    duplicatesSkipped: m.tasks.reduce((n, t) => n + (t.duplicatesSkipped ?? 0), 0),
    tasks: m.tasks.map((t) => t.taskId).sort(),
  })
}, 500).unref()
app.stopped().then((err) => {
  if (err !== undefined) print({ event: 'stopped', error: String(err.message) })
})
process.on('SIGTERM', () => {
  void app.close().then(() => process.exit(0))
})
