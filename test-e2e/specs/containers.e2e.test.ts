/**
 * Sluice in real containers (issue 8): the image from deploy/build-image.sh runs a metadata
 * service and three brokers (testcontainers, host network, distinct loopback ports), the SDK
 * produces and consumes through them, a broker container is stopped (SIGTERM: clean exit,
 * leadership moves, acks=all writes still succeed with min.insync.replicas 2) and started again
 * (it rejoins every ISR). A second test starts deploy/docker-compose.yml with the host-network
 * override and waits for every service to be healthy (admin /readyz), then produces and consumes.
 *
 * Needs a Docker daemon (DOCKER_HOST, or deploy/ci/start-dockerd.sh) and the built dist/; the
 * node:20-bookworm-slim base is built from Debian packages when missing. Without Docker the file
 * is skipped with the reason, unless SLUICE_E2E_REQUIRE_DOCKER=1 (CI), which makes it fail.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import path from 'node:path'
import { connect, type SluiceClient } from '@sluice/client'
import { freePorts, waitFor } from '@sluice/testkit'
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import {
  DOCKER_REQUIRED,
  REPO_ROOT,
  buildSluiceImage,
  composeCommand,
  configureTestcontainers,
  dockerStatus,
} from '../src/harness/docker.js'
import { readTopic } from '../src/harness/read-back.js'

const docker = dockerStatus()
const skip = !docker.usable && !DOCKER_REQUIRED
if (skip)
  console.warn(
    `containers.e2e: SKIPPED, Docker cannot be used here: ${docker.reason}. Start one with deploy/ci/start-dockerd.sh (see deploy/README.md).`,
  )

const IMAGE = process.env.SLUICE_E2E_IMAGE ?? 'sluice:e2e'
const TOPIC_CONFIG = { 'min.insync.replicas': '2' }

async function produceValues(client: SluiceClient, topic: string, values: string[]): Promise<void> {
  const producer = client.producer({ acks: 'all' })
  try {
    await Promise.all(values.map(async (v) => await producer.send({ topic, records: [{ key: v, value: v }] })))
  } finally {
    await producer.close()
  }
}

async function partitions(
  client: SluiceClient,
  topic: string,
): Promise<Array<{ partition: number; leader: number; isr: number[] }>> {
  const [t] = await client.admin().describeTopics([topic])
  return t!.partitions
}

type RuntimeClientFactory = typeof import('testcontainers')['getContainerRuntimeClient']
interface BrokerContainer {
  id: number
  container: { getId(): string }
}

async function failoverScenario(
  brokerPorts: number[],
  adminPorts: number[],
  brokers: BrokerContainer[],
  getContainerRuntimeClient: RuntimeClientFactory,
): Promise<void> {
  let last = Date.now()
  const phases: string[] = []
  const phase = (name: string): void => {
    phases.push(`${name} ${Date.now() - last} ms`)
    last = Date.now()
  }
  const client = await connect({ bootstrap: brokerPorts.map((p) => `127.0.0.1:${p}`), clientId: 'containers-e2e' })
  onTestFinished(async () => {
    await client.close()
  })
  const topic = 'containers'
  // A broker prints LISTENING once registered; the cluster view may still be catching up.
  await waitFor(async () => (await client.admin().describeCluster()).brokers.length === 3, {
    description: 'three registered brokers',
    timeoutMs: 30_000,
  })
  await client.admin().createTopics([{ name: topic, numPartitions: 3, replicationFactor: 3, configs: TOPIC_CONFIG }])
  await waitFor(async () => (await partitions(client, topic)).every((p) => p.isr.length === 3), {
    description: 'a full ISR everywhere',
    timeoutMs: 30_000,
  })
  const before = Array.from({ length: 60 }, (_, i) => `before-${i}`)
  await produceValues(client, topic, before)
  expect((await readTopic(client, topic)).map((r) => r.value).sort()).toEqual([...before].sort())
  phase('create+produce+consume')

  // The admin endpoints answer from inside the containers' network (the host's loopback).
  const ready = await fetch(`http://127.0.0.1:${adminPorts[0]}/readyz`)
  expect(ready.status).toBe(200)

  // Stop the leader of partition 0 the way an orchestrator does: SIGTERM, then wait.
  const victimId = (await partitions(client, topic)).find((p) => p.partition === 0)!.leader
  const victim = brokers.find((b) => b.id === victimId)!
  const runtime = await getContainerRuntimeClient()
  const victimContainer = runtime.container.getById(victim.container.getId())
  await runtime.container.stop(victimContainer, { timeout: 30_000 })
  const state = (await runtime.container.inspect(victimContainer)).State
  expect(state.Running).toBe(false)
  expect(state.ExitCode, 'a SIGTERMed broker exits cleanly (0), not killed after the grace period').toBe(0)
  phase(`stop broker ${victimId} (SIGTERM, exit 0)`)

  // Controlled shutdown: the stopping broker hands its leaderships over and leaves the ISRs.
  await waitFor(async () => (await partitions(client, topic)).every((p) => p.leader !== victimId && p.leader >= 0), {
    description: `leaders other than broker ${victimId}`,
    timeoutMs: 30_000,
  })
  phase('leadership moved')
  const shrunk = await waitFor(
    async () => {
      const ps = await partitions(client, topic)
      return ps.every((p) => !p.isr.includes(victimId)) && ps
    },
    { description: `ISRs without broker ${victimId}`, timeoutMs: 30_000 },
  )
  expect(shrunk.map((p) => p.isr.length)).toEqual([2, 2, 2])
  phase('ISR shrunk')
  const during = Array.from({ length: 60 }, (_, i) => `during-${i}`)
  await produceValues(client, topic, during)
  phase('acks=all produce without it')

  await runtime.container.start(victimContainer)
  await waitFor(async () => (await partitions(client, topic)).every((p) => p.isr.includes(victimId)), {
    description: `broker ${victimId} back in every ISR`,
    timeoutMs: 60_000,
  })
  phase('restart+rejoin ISR')
  const after = Array.from({ length: 30 }, (_, i) => `after-${i}`)
  await produceValues(client, topic, after)
  const all = (await readTopic(client, topic)).map((r) => r.value)
  expect(all.sort()).toEqual([...before, ...during, ...after].sort())
  phase('produce+read back')
  console.log(`containers.e2e: ${phases.join(', ')}`)
}

async function composeScenario(run: (...args: string[]) => string, ports: number[]): Promise<void> {
  const upStarted = Date.now()
  run('up', '-d')
  const ids = run('ps', '-q')
    .split('\n')
    .map((s) => s.trim())
    .filter((s) => s !== '')
  expect(ids).toHaveLength(5) // network anchor, metadata, three brokers
  const health = (): string[] =>
    ids.map((id) =>
      execFileSync(
        'docker',
        ['inspect', '-f', '{{.Name}} {{if .State.Health}}{{.State.Health.Status}}{{else}}no-healthcheck{{end}}', id],
        { encoding: 'utf8' },
      ).trim(),
    )
  await waitFor(() => health().every((h) => h.endsWith(' healthy') || h.endsWith(' no-healthcheck')), {
    description: 'every compose service healthy',
    timeoutMs: 90_000,
    intervalMs: 500,
  })
  const sluiceServices = health().filter((h) => h.endsWith(' healthy'))
  expect(sluiceServices).toHaveLength(4)
  console.log(`containers.e2e: compose cluster healthy in ${Date.now() - upStarted} ms`)

  const client = await connect({ bootstrap: [`127.0.0.1:${ports[2]}`], clientId: 'compose-e2e' })
  onTestFinished(async () => {
    await client.close()
  })
  expect((await client.admin().describeCluster()).brokers.map((b) => b.port).sort()).toEqual(
    [ports[2], ports[3], ports[4]].sort(),
  )
  await client
    .admin()
    .createTopics([{ name: 'compose', numPartitions: 3, replicationFactor: 3, configs: TOPIC_CONFIG }])
  const values = Array.from({ length: 30 }, (_, i) => `compose-${i}`)
  await produceValues(client, 'compose', values)
  expect((await readTopic(client, 'compose')).map((r) => r.value).sort()).toEqual([...values].sort())
  const metrics = await (await fetch(`http://127.0.0.1:${ports[5]}/metrics`)).text()
  expect(metrics).toMatch(/^# TYPE \S+ (counter|gauge|histogram)/m)
}

describe.skipIf(skip)('Sluice containers (host network, loopback ports)', () => {
  beforeAll(() => {
    if (!docker.usable) throw new Error(`SLUICE_E2E_REQUIRE_DOCKER=1 but Docker cannot be used: ${docker.reason}`)
    configureTestcontainers()
    const seconds = buildSluiceImage(IMAGE)
    console.log(`containers.e2e: image ${IMAGE} built in ${seconds.toFixed(1)} s`)
  }, 600_000)

  it('metadata service + 3 brokers: produce/consume, a stopped broker fails over (acks=all still succeeds), restarted it rejoins the ISR', async () => {
    const { GenericContainer, Wait, getContainerRuntimeClient } = await import('testcontainers')
    const [mdPort, mdAdmin, ...ports] = await freePorts(11)
    const brokerPorts = ports.slice(0, 3)
    const adminPorts = ports.slice(3, 6)
    // Host network: each broker's Kafka listener needs a port of its own too.
    const kafkaPorts = ports.slice(6, 9)
    const common = { SLUICE_LOG_LEVEL: 'warn', SLUICE_HOST: '127.0.0.1' }
    const metadata = await new GenericContainer(IMAGE)
      .withNetworkMode('host')
      .withCommand(['metadata'])
      .withEnvironment({
        ...common,
        SLUICE_PORT: String(mdPort),
        SLUICE_ADMIN_PORT: String(mdAdmin),
        SLUICE_DEFAULT_REPLICATION_FACTOR: '3',
      })
      .withWaitStrategy(Wait.forLogMessage(/LISTENING \d+/))
      .withStartupTimeout(60_000)
      .start()
    const brokerContainers: Array<{ stop(o: { timeout: number }): Promise<unknown> }> = []
    // Brokers first (a stopping broker deregisters from the metadata service), then metadata.
    onTestFinished(async () => {
      await Promise.all(brokerContainers.map(async (c) => await c.stop({ timeout: 10_000 })))
      await metadata.stop({ timeout: 10_000 })
    })
    const brokers = await Promise.all(
      [1, 2, 3].map(async (id) => {
        const c = await new GenericContainer(IMAGE)
          .withNetworkMode('host')
          .withCommand(['broker'])
          .withEnvironment({
            ...common,
            SLUICE_BROKER_ID: String(id),
            SLUICE_PORT: String(brokerPorts[id - 1]),
            SLUICE_ADMIN_PORT: String(adminPorts[id - 1]),
            SLUICE_KAFKA_PORT: String(kafkaPorts[id - 1]),
            SLUICE_METADATA_ENDPOINTS: `127.0.0.1:${mdPort}`,
            // Short session so that a killed broker would be noticed fast; a clean stop needs none.
            SLUICE_SESSION_TIMEOUT_MS: '6000',
            // The controller drops a stopped broker from the ISRs at once, but the leaders' acks=all
            // waits still hold on to it until this lag passes (30 s by default): docs/deployment.md.
            SLUICE_REPLICA_LAG_MAX_MS: '5000',
          })
          .withWaitStrategy(Wait.forLogMessage(/LISTENING \d+/))
          .withStartupTimeout(60_000)
          .start()
        brokerContainers.push(c)
        return { id, container: c }
      }),
    )
    // Printed while the containers still exist (onTestFinished removes them before onTestFailed runs).
    const dumpLogs = (): void => {
      for (const c of [metadata, ...brokers.map((b) => b.container)]) {
        const r = spawnSync('docker', ['logs', '--tail', '15', c.getId()], { encoding: 'utf8' })
        console.log(`--- ${c.getName()} ---\n${r.stdout}${r.stderr}`)
      }
    }
    try {
      await failoverScenario(brokerPorts, adminPorts, brokers, getContainerRuntimeClient)
    } catch (err) {
      dumpLogs()
      throw err
    }
  }, 240_000)

  it('docker compose (with the host-network override) starts a healthy cluster that serves the SDK', async () => {
    const compose = composeCommand()
    if (compose === undefined) {
      if (DOCKER_REQUIRED) throw new Error('neither docker-compose nor `docker compose` is installed')
      console.warn('containers.e2e: compose check skipped: neither docker-compose nor `docker compose` is installed')
      return
    }
    const ports = await freePorts(11)
    const env = {
      ...process.env,
      SLUICE_IMAGE: IMAGE,
      SLUICE_HEALTHCHECK_INTERVAL: '1s',
      METADATA_PORT: String(ports[0]),
      METADATA_ADMIN_PORT: String(ports[1]),
      BROKER1_PORT: String(ports[2]),
      BROKER2_PORT: String(ports[3]),
      BROKER3_PORT: String(ports[4]),
      BROKER1_ADMIN_PORT: String(ports[5]),
      BROKER2_ADMIN_PORT: String(ports[6]),
      BROKER3_ADMIN_PORT: String(ports[7]),
      BROKER1_KAFKA_PORT: String(ports[8]),
      BROKER2_KAFKA_PORT: String(ports[9]),
      BROKER3_KAFKA_PORT: String(ports[10]),
    }
    const project = `sluice-e2e-${process.pid}`
    const files = [
      '-f',
      path.join(REPO_ROOT, 'deploy/docker-compose.yml'),
      '-f',
      path.join(REPO_ROOT, 'deploy/docker-compose.host.yml'),
    ]
    const run = (...args: string[]): string =>
      execFileSync(compose[0]!, [...compose.slice(1), '-p', project, ...files, ...args], {
        env,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 120_000,
      })
    // Every file combination parses and merges (the published-ports variants cannot be started
    // where bridge networks are forbidden, but compose still checks them).
    for (const combo of [
      ['docker-compose.yml'],
      ['docker-compose.zookeeper.yml'],
      ['docker-compose.zookeeper.yml', 'docker-compose.zookeeper.host.yml'],
    ]) {
      execFileSync(
        compose[0]!,
        [...compose.slice(1), ...combo.flatMap((f) => ['-f', path.join(REPO_ROOT, 'deploy', f)]), 'config', '-q'],
        { env, stdio: ['ignore', 'pipe', 'pipe'] },
      )
    }
    onTestFinished(() => {
      run('down', '-v', '-t', '10')
    })
    try {
      await composeScenario(run, ports)
    } catch (err) {
      // Here, not in onTestFailed: onTestFinished has removed the containers by then.
      console.log(run('logs', '--no-color', '--tail', '20'))
      throw err
    }
  }, 240_000)
})
