/**
 * `sluice dev --metadata zookeeper` without ZooKeeper installed: exits 1 before starting anything,
 * saying how to install it. (With ZooKeeper installed, the metadata service on ZooKeeper is
 * covered by test-int/specs/metadata/zookeeper-backend.int.test.ts.)
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, it, onTestFinished, vi } from 'vitest'
import { freePorts } from '@sluice/testkit'
import { testIo } from '../test-io.js'

afterEach(() => {
  vi.unstubAllEnvs()
  vi.resetModules()
})

it('exits 1 with an install hint (apt-get, Java) when ZooKeeper is not installed, starting nothing', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'sluice-dev-zk-'))
  onTestFinished(async () => {
    await rm(dir, { recursive: true, force: true })
  })
  // The harness reads the jar path when it loads: point it at a file that does not exist.
  vi.stubEnv('SLUICE_ZOOKEEPER_JAR', join(dir, 'no-such-zookeeper.jar'))
  vi.resetModules()
  const { runDev } = await import('./dev.js')
  const [port, kafkaPort, metadataPort] = await freePorts(3)
  const io = testIo()
  const code = await runDev(
    {
      brokers: 1,
      dataDir: join(dir, 'dev'),
      port: port!,
      kafkaPort: kafkaPort!,
      metadataPort: metadataPort!,
      metadata: 'zookeeper',
    },
    io,
  )
  expect(code).toBe(1)
  expect(io.err()).toMatch(/ZooKeeper is not installed/)
  expect(io.err()).toMatch(/apt-get install -y --no-install-recommends zookeeper/)
  expect(io.err()).toMatch(/Java/)
  expect(await readdir(dir)).toEqual([]) // no data dir, no processes
})
