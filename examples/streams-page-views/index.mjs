// Page views per user per one-minute window: JSON events {user, page, ts} keyed by user are
// counted per user in tumbling one-minute windows of event time (`ts`), with a 10 s grace for
// late events, in the window store `views-per-minute`. Every new count goes to the output
// topic keyed `<user>@<window start, ISO 8601>`.
//
//   node examples/streams-page-views/index.mjs [--bootstrap 127.0.0.1:9192] [--input page-views]
//     [--output views-per-user-minute] [--application-id page-views] [--state-dir DIR] [--partitions 3]
import { Serdes, StreamsBuilder, TimeWindows } from '@sluice/streams'
import { ensureTopics, parseFlags, runApp } from '../shared.mjs'

const flags = parseFlags({ input: 'page-views', output: 'views-per-user-minute', applicationId: 'page-views' })
await ensureTopics(flags.bootstrap, [flags.input, flags.output], flags.partitions)

const builder = new StreamsBuilder()
builder
  .stream(flags.input, {
    keySerde: Serdes.string(),
    valueSerde: Serdes.json(),
    // Windows follow when the view happened, not when it was produced. An event without a
    // usable `ts` falls back to the record's timestamp rather than being skipped.
    timestampExtractor: (record) => (Number.isSafeInteger(record.value?.ts) ? record.value.ts : record.timestamp),
  })
  .groupByKey()
  .windowedBy(TimeWindows.ofSizeAndGrace(60_000, 10_000))
  .count({ name: 'views-per-minute' })
  .toStream()
  // A readable key and value instead of windowedSerde's binary key and an 8-byte long, so
  // that `sluice consume --print-key` shows them.
  .map((windowed, count) => ({
    key: `${windowed.key}@${new Date(windowed.window.start).toISOString()}`,
    value: String(count),
  }))
  .to(flags.output, { keySerde: Serdes.string(), valueSerde: Serdes.string() })

await runApp(builder.build(), flags, 'page views')
