#!/usr/bin/env node
// Container health check for every Sluice role (the image has no curl): exits 0 when healthy.
//   node /opt/sluice/healthcheck.mjs [/readyz|/healthz]
// With SLUICE_ADMIN_PORT set it asks the admin server (GET <path>, 200 = healthy); without it,
// a TCP connect to the serving port (SLUICE_PORT) is the best available sign of life.
import { connect } from 'node:net'

const path = process.argv[2] ?? '/readyz'
const admin = process.env.SLUICE_ADMIN_PORT
const fail = (why) => {
  process.stderr.write(`unhealthy: ${why}\n`)
  process.exit(1)
}
setTimeout(() => fail('no answer within 4 s'), 4000).unref()

if (admin !== undefined && admin !== '' && admin !== '0') {
  try {
    const res = await fetch(`http://127.0.0.1:${admin}${path}`, { signal: AbortSignal.timeout(3000) })
    if (res.status !== 200) fail(`GET ${path} answered ${res.status}: ${(await res.text()).slice(0, 200)}`)
    process.exit(0)
  } catch (e) {
    fail(`GET ${path} on port ${admin}: ${e.message}`)
  }
} else {
  const port = Number(process.env.SLUICE_PORT ?? '')
  if (!Number.isInteger(port) || port <= 0) fail('neither SLUICE_ADMIN_PORT nor SLUICE_PORT is set')
  const socket = connect({ host: '127.0.0.1', port })
  socket.on('connect', () => {
    socket.destroy()
    process.exit(0)
  })
  socket.on('error', (e) => fail(`connect 127.0.0.1:${port}: ${e.message}`))
}
