// Word count: each line of the input topic is split into words, the words are regrouped by
// word (through the repartition topic `<app>-words-repartition`) and counted in the store
// `counts` (changelog `<app>-counts-changelog`); every new count goes to the output topic.
//
//   node examples/streams-word-count/index.mjs [--bootstrap 127.0.0.1:9192] [--input lines]
//     [--output word-counts] [--application-id word-count] [--state-dir DIR] [--partitions 3]
import { Serdes, StreamsBuilder } from '@sluice/streams'
import { ensureTopics, parseFlags, runApp } from '../shared.mjs'

const flags = parseFlags({ input: 'lines', output: 'word-counts', applicationId: 'word-count' })
await ensureTopics(flags.bootstrap, [flags.input, flags.output], flags.partitions)

const builder = new StreamsBuilder()
builder
  .stream(flags.input, { keySerde: Serdes.string(), valueSerde: Serdes.string() })
  .flatMapValues((line) =>
    line
      .toLowerCase()
      .split(/\W+/)
      .filter((word) => word !== ''),
  )
  .groupBy((_key, word) => word, { name: 'words', keySerde: Serdes.string(), valueSerde: Serdes.string() })
  .count({ name: 'counts' })
  .toStream()
  // The count as decimal text rather than Serdes.long()'s 8 bytes, so that `sluice consume`
  // (which prints values as UTF-8) shows it.
  .mapValues((count) => String(count))
  .to(flags.output, { keySerde: Serdes.string(), valueSerde: Serdes.string() })

await runApp(builder.build(), flags, 'word count')
