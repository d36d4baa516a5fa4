// A stand-in for a Sluice server in spawn-process tests. Behaviour from argv[2]:
//   listen   listen on 127.0.0.1:0, print LISTENING <port>, exit 0 on SIGTERM
//   kafka    like listen, but print KAFKA_LISTENING <port + 1> first, as a broker with --kafka-port
//   stubborn like listen, but ignore SIGTERM (only SIGKILL ends it)
//   crash    print an error on stderr and exit 3 before listening
//   silent   never print LISTENING (stays alive until killed)
import net from 'node:net'

const mode = process.argv[2]
if (mode === 'crash') {
  console.error('config problem: dataDir: Required')
  process.exit(3)
}
const keepAlive = setInterval(() => {}, 1000)
if (mode === 'silent') {
  process.on('SIGTERM', () => process.exit(0))
} else {
  const server = net.createServer()
  server.listen(0, '127.0.0.1', () => {
    console.log(JSON.stringify({ level: 30, time: Date.now(), msg: 'starting' }))
    if (mode === 'kafka') console.log(`KAFKA_LISTENING ${server.address().port + 1}`)
    console.log(`LISTENING ${server.address().port}`)
  })
  process.on('SIGTERM', () => {
    if (mode === 'stubborn') return
    clearInterval(keepAlive)
    server.close(() => process.exit(0))
  })
}
