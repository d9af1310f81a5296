// Where a voice download may be redirected. A public source (the Piper
// repository and its CDN) redirects to public hosts; a redirect from it to a
// loopback, private, link-local or otherwise internal address would make the
// service fetch from inside its own network on a stranger's word (the admin
// would see that server's answer: a server-side request forgery). So such a
// redirect is refused, unless the configured source is itself on such an
// address (a mirror in the same cluster), whose redirects stay trusted.
// Names are resolved to every address they have: one internal address
// makes the target internal.

import { BlockList, isIP } from 'node:net'
import { lookup as dnsLookup } from 'node:dns/promises'

/** Every address a host name resolves to. */
export type AddressLookup = (host: string) => Promise<string[]>

export const systemLookup: AddressLookup = async host => (await dnsLookup(host, { all: true, verbatim: true })).map(entry => entry.address)

const INTERNAL = new BlockList()
for (const [network, prefix] of [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]
] as const) INTERNAL.addSubnet(network, prefix, 'ipv4')
for (const [network, prefix] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) INTERNAL.addSubnet(network, prefix, 'ipv6')

/** Whether an address is loopback, private, link-local, shared, multicast or unspecified. */
export function isInternalAddress (address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '')
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare)
  if (mapped !== null) return INTERNAL.check(mapped[1] as string, 'ipv4')
  const family = isIP(bare)
  if (family === 0) return false
  return INTERNAL.check(bare, family === 4 ? 'ipv4' : 'ipv6')
}

/** The addresses of a URL's host: itself when it is an IP literal. */
async function addressesOf (url: URL, lookup: AddressLookup): Promise<string[]> {
  const host = url.hostname.replace(/^\[|\]$/g, '')
  return isIP(host) !== 0 ? [host] : await lookup(host)
}

/** Decides the redirects of downloads from one configured source. */
export class RedirectPolicy {
  #sourceInternal: Promise<boolean> | undefined

  constructor (private readonly source: URL, private readonly lookup: AddressLookup = systemLookup) {}

  /** Why `target` may not be followed, or undefined when it may. */
  async refusal (target: URL): Promise<string | undefined> {
    if (target.protocol !== 'http:' && target.protocol !== 'https:') return `it leads to a ${target.protocol} URL, not http: or https:`
    this.#sourceInternal ??= addressesOf(this.source, this.lookup).then(addresses => addresses.some(isInternalAddress), () => false)
    if (await this.#sourceInternal) return undefined
    let addresses: string[]
    try {
      addresses = await addressesOf(target, this.lookup)
    } catch {
      return `its host ${target.hostname} does not resolve`
    }
    const internal = addresses.find(isInternalAddress)
    if (internal === undefined) return undefined
    return `its host ${target.hostname} is on an internal address (${internal}: loopback, private or link-local), and the configured source is not`
  }
}
