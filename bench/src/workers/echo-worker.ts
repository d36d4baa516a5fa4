/**
 * The far end of the wake-up probe (wakeup-probe.ts): a TCP echo server on 127.0.0.1 that
 * reports its port and, when asked over IPC, its own CPU time, so the probe can charge each
 * round trip's CPU to both processes.
 */
import net from 'node:net'

const server = net.createServer((socket) => {
  socket.setNoDelay(true)
  socket.on('data', (data) => socket.write(data))
  socket.on('error', () => socket.destroy())
})
server.listen(0, '127.0.0.1', () => {
  const address = server.address()
  process.send?.({ port: typeof address === 'object' && address !== null ? address.port : 0 })
})
process.on('message', (m) => {
  if (m === 'cpu') process.send?.({ cpu: process.cpuUsage() })
  if (m === 'stop') server.close(() => process.exit(0))
})
// The probe owns this process: without it, there is nothing to serve.
process.on('disconnect', () => process.exit(0))
