// Writes to a persistent key-value store, flushes, writes more without flushing, says FLUSHED
// and waits to be killed (lmdb-engine.test.ts kills it with SIGKILL: no close, no more flushes).
// It runs the built package (dist/), as a separate process must: `npx tsc -b` first.
import { Stores } from '../../../dist/index.js'

const [stateDir, countText] = process.argv.slice(2)
const count = Number(countText)
const text = {
  name: 'string',
  serialize: (value) => Buffer.from(value, 'utf8'),
  deserialize: (data) => data.toString('utf8'),
}
const store = Stores.persistentKeyValueStore('crashy', text, text, { logging: false }).build()
store.init({
  applicationId: 'crash-app',
  taskId: { subtopology: 0, partition: 0 },
  stateDir,
  streamTimeMs: () => 0,
})
for (let i = 0; i < count; i++) store.put(`key-${i}`, `flushed-${i}`)
store.flush()
// Neither of these is flushed: the crash must lose them, and nothing else.
store.put('key-0', 'overwritten-after-flush')
store.put('unflushed', 'lost')
process.stdout.write('FLUSHED\n')
setInterval(() => {}, 1000)
