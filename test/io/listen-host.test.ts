/** --host before listening: addresses pass untouched, a name must resolve (src/io/listen-host.ts). */
import { describe, expect, test } from 'bun:test'
import { hostInUrl, isHostName, unresolvedHost } from '../../src/io/listen-host.ts'

describe('unresolvedHost', () => {
  test('addresses are not looked up: IPv4, IPv6, bracketed IPv6', async () => {
    for (const host of ['0.0.0.0', '127.0.0.1', '::', '::1', '[::1]', '192.0.2.1']) {
      expect({ host, name: isHostName(host) }).toEqual({ host, name: false })
      expect(await unresolvedHost(host)).toBeNull()
    }
  })

  test('a name that resolves (localhost, from the hosts file) passes', async () => {
    expect(isHostName('localhost')).toBe(true)
    expect(await unresolvedHost('localhost')).toBeNull()
  })

  test('a name under .invalid (RFC 6761: never resolves) is refused without asking the resolver, in any case, with or without the final dot', async () => {
    for (const host of ['nosuchhost.invalid', 'NoSuchHost.INVALID', 'a.b.invalid.', 'invalid']) {
      expect({ host, problem: await unresolvedHost(host) }).toEqual({ host, problem: 'the name does not resolve to an address (names under .invalid never do)' })
    }
  })
})

describe('hostInUrl', () => {
  test('an IPv6 address in brackets, once; names and IPv4 as they are', () => {
    expect(['::1', '[::1]', '0.0.0.0', 'localhost', 'fe80::1%lo'].map(hostInUrl)).toEqual(['[::1]', '[::1]', '0.0.0.0', 'localhost', '[fe80::1%lo]'])
  })
})
