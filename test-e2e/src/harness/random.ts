/**
 * Seeded randomness for the randomized fault run and the soak: the same seed replays the same
 * fault schedule (the cluster's own timing still varies), so a failing seed printed by CI can be
 * run again locally with `pnpm soak --seed N`.
 */

/** mulberry32: a tiny, good-enough 32-bit PRNG; returns floats in [0, 1). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export interface Rng {
  readonly seed: number
  /** Integer in [min, max]. */
  int(min: number, max: number): number
  pick<T>(items: readonly T[]): T
}

export function createRng(seed: number): Rng {
  const next = mulberry32(seed)
  return {
    seed,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    pick: (items) => {
      if (items.length === 0) throw new RangeError('pick from an empty list')
      return items[Math.floor(next() * items.length)]!
    },
  }
}

/** A seed from the environment (SLUICE_E2E_SEED) or the clock. */
export function seedFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  const s = env.SLUICE_E2E_SEED
  if (s !== undefined && /^\d+$/.test(s)) return Number(s) >>> 0
  return (Date.now() ^ (process.pid << 16)) >>> 0
}

export interface SoakArgs {
  seed: number
  minutes: number
}

/** `[--seed N] [--minutes M]`; throws a RangeError naming the bad argument. */
export function parseSoakArgs(argv: readonly string[]): SoakArgs {
  let seed = seedFromEnv()
  let minutes = 5
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    const value = argv[i + 1]
    if (arg === '--') continue
    if (arg === '--seed') {
      if (value === undefined || !/^\d+$/.test(value))
        throw new RangeError(`--seed needs a non-negative integer, got ${String(value)}`)
      seed = Number(value) >>> 0
      i++
    } else if (arg === '--minutes') {
      const m = Number(value)
      if (value === undefined || !Number.isFinite(m) || m <= 0)
        throw new RangeError(`--minutes needs a positive number, got ${String(value)}`)
      minutes = m
      i++
    } else {
      throw new RangeError(`unknown argument ${arg} (usage: pnpm soak [--seed N] [--minutes M])`)
    }
  }
  return { seed, minutes }
}
