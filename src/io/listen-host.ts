/**
 * The --host value before listening: a name that does not resolve stops the
 * start with a plain sentence (Bun's listen reports it as `ENOTTY: inappropriate
 * ioctl for device`, which says nothing to an operator).
 */
import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'

/** Whether `host` is a name rather than an IPv4 or IPv6 address (bracketed or not). */
export const isHostName = (host: string) => isIP(host.replace(/^\[(.*)\]$/, '$1')) === 0

/** `host` as a URL writes it: an IPv6 address in brackets (once: `--host [::1]` already has them). */
export const hostInUrl = (host: string) => (host.includes(':') && !host.startsWith('[') ? `[${host}]` : host)

/** Why `host` cannot be listened on for want of an address, or null when it is an address or a name that resolves. */
export async function unresolvedHost(host: string): Promise<string | null> {
  if (!isHostName(host)) return null
  const name = host.toLowerCase().replace(/\.$/, '')
  // RFC 6761: a name under .invalid never resolves; the resolver is not asked.
  if (name === 'invalid' || name.endsWith('.invalid')) return 'the name does not resolve to an address (names under .invalid never do)'
  try {
    await lookup(name)
    return null
  } catch {
    return 'the name does not resolve to an address'
  }
}
