/**
 * The embedded store's snapshot: every persistent znode as of one zxid.
 *
 * Format of `<dataDir>/metadata.snapshot`: u32 BE CRC-32C of the rest | UTF-8 JSON
 * {"format": 1, "zxid": n, "nodes": [[path, base64 data, version, seq], ...]} with parents before
 * children. Written to a temp file, fsynced, renamed over the old one and the directory fsynced,
 * so a reader sees either the old or the new snapshot, never a mix. A snapshot that fails its CRC
 * is an error (not silently ignored): the journal entries it replaced are already gone.
 */
import { open, readFile, rename } from 'node:fs/promises'
import { join } from 'node:path'
import { SluiceError, crc32c } from '@sluice/protocol'
import type { SnapshotNode } from './znode-tree.js'

export const SNAPSHOT_FILE = 'metadata.snapshot'
const FORMAT = 1

export interface Snapshot {
  readonly zxid: number
  readonly nodes: SnapshotNode[]
}

export async function readSnapshot(dataDir: string): Promise<Snapshot | undefined> {
  let buf: Buffer
  try {
    buf = await readFile(join(dataDir, SNAPSHOT_FILE))
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw e
  }
  const body = buf.subarray(4)
  if (buf.length < 4 || crc32c(body) !== buf.readUInt32BE(0)) {
    throw new SluiceError('METADATA_UNAVAILABLE', `snapshot ${join(dataDir, SNAPSHOT_FILE)} is corrupt (CRC mismatch)`)
  }
  const parsed = JSON.parse(body.toString('utf8')) as { format?: unknown; zxid?: unknown; nodes?: unknown }
  if (parsed.format !== FORMAT || typeof parsed.zxid !== 'number' || !Array.isArray(parsed.nodes)) {
    throw new SluiceError('METADATA_UNAVAILABLE', `snapshot ${join(dataDir, SNAPSHOT_FILE)} has an unknown format`)
  }
  return { zxid: parsed.zxid, nodes: parsed.nodes as SnapshotNode[] }
}

export async function writeSnapshot(dataDir: string, snapshot: Snapshot): Promise<void> {
  const body = Buffer.from(JSON.stringify({ format: FORMAT, zxid: snapshot.zxid, nodes: snapshot.nodes }), 'utf8')
  const header = Buffer.alloc(4)
  header.writeUInt32BE(crc32c(body), 0)
  const target = join(dataDir, SNAPSHOT_FILE)
  const tmp = `${target}.tmp`
  const fh = await open(tmp, 'w')
  try {
    await fh.writeFile(Buffer.concat([header, body]))
    await fh.sync()
  } finally {
    await fh.close()
  }
  await rename(tmp, target)
  const dir = await open(dataDir, 'r')
  try {
    await dir.sync()
  } finally {
    await dir.close()
  }
}
