#!/usr/bin/env node
// ZooKeeper health for Docker and Kubernetes probes, through the four-letter-word commands:
//   zk-healthcheck alive   the server answers `ruok` with `imok`
//   zk-healthcheck ready   it serves clients: `srvr` reports a mode (leader, follower, standalone)
import { connect } from 'node:net'

const port = Number(process.env.ZK_CLIENT_PORT ?? '2181')
const what = process.argv[2] ?? 'ready'
const command = what === 'alive' ? 'ruok' : 'srvr'
const fail = (why) => {
  process.stderr.write(`zookeeper not ${what}: ${why}\n`)
  process.exit(1)
}
setTimeout(() => fail('no answer within 3 s'), 3000).unref()

let answer = ''
const socket = connect({ host: '127.0.0.1', port }, () => socket.write(command))
socket.on('data', (d) => {
  answer += d.toString('utf8')
})
socket.on('error', (e) => fail(e.message))
socket.on('close', () => {
  if (what === 'alive' ? answer === 'imok' : /^Mode: (leader|follower|standalone)$/m.test(answer)) process.exit(0)
  fail(JSON.stringify(answer.slice(0, 200)))
})
