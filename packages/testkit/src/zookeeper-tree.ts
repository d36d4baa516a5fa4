/**
 * Reads a Sluice cluster's znodes straight from ZooKeeper, for tests that check what the
 * metadata service wrote (or, when fenced, did not write). Opens a fresh store session per call
 * and closes it again, so nothing lingers.
 */
import { ZooKeeperStore } from '@sluice/metadata'

/** Every node under `root` (inclusive) with its data as text, keyed by path; ephemeral owners dropped. */
export async function readZooKeeperTree(
  connectString: string,
  chroot: string,
  root = '/',
): Promise<Map<string, string>> {
  const store = await ZooKeeperStore.open({ connectString, chroot })
  try {
    const out = new Map<string, string>()
    const visit = async (path: string): Promise<void> => {
      try {
        out.set(path, (await store.get(path)).data.toString('utf8'))
        for (const child of await store.children(path)) await visit(path === '/' ? `/${child}` : `${path}/${child}`)
      } catch (e) {
        if ((e as { code?: string }).code !== 'META_NO_NODE') throw e // deleted while walking
      }
    }
    await visit(root)
    return out
  } finally {
    await store.close()
  }
}
