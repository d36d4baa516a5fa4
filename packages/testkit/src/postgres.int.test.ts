import { existsSync } from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { postgresInstalled, startPostgres } from './postgres.js'
import { liveResources, stopAll } from './tracker.js'

afterEach(async () => {
  await stopAll()
  expect(liveResources()).toEqual([])
})

describe.runIf(postgresInstalled())('startPostgres', () => {
  it('starts PostgreSQL with logical replication on a free 127.0.0.1 port, and removes it on stop', async () => {
    const pg = await startPostgres()
    expect(pg.port).toBeGreaterThan(0)
    expect((await pg.psql('SHOW wal_level')).trim()).toBe('logical')
    await pg.psql('CREATE DATABASE other')
    expect((await pg.psql('SELECT 40 + 2', 'other')).trim()).toBe('42')
    await pg.stop()
    expect(existsSync(pg.dataDir)).toBe(false)
  }, 60_000)
})
