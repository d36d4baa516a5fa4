/** PostgreSQL WAL positions: `16/B374D848` text <-> a number (safe below 2^53 bytes of WAL). */
export function parseLsn(text: string): number {
  const m = /^([0-9A-Fa-f]{1,8})\/([0-9A-Fa-f]{1,8})$/.exec(text)
  if (m === null) throw new Error(`not an LSN: ${text}`)
  return Number.parseInt(m[1]!, 16) * 2 ** 32 + Number.parseInt(m[2]!, 16)
}

export function formatLsn(lsn: number): string {
  const hi = Math.floor(lsn / 2 ** 32)
  const lo = lsn - hi * 2 ** 32
  return `${hi.toString(16).toUpperCase()}/${lo.toString(16).toUpperCase()}`
}
