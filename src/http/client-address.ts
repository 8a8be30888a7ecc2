// The address a request came from: the socket's peer or, when that peer is a proxy TRUST_PROXY names, the client
// the proxies saw, read from X-Forwarded-For right to left (each proxy appends its peer; the left part is
// whatever the client chose to send, so it is never believed).
import { BlockList, isIP } from 'node:net'
import type { Config } from '../config'

/** What is needed of Bun's server: the socket peer of a request it is serving. */
export interface PeerSource {
  requestIP(request: Request): { address: string } | null
}

/** Each request's socket peer, recorded by serveApp: handlers reached through app.fetch have no server of their own. */
const peers = new WeakMap<Request, string>()

export function recordPeer(request: Request, server: PeerSource): void {
  const address = server.requestIP(request)?.address
  if (address) peers.set(request, address)
}

/** Requests with no socket (in-process calls, app.handle in tests) share this one address. */
export const UNKNOWN_ADDRESS = 'unknown'

/** The client's address for per-address limits (sign-in, OAuth registration), canonical (IPv4-mapped IPv6 as IPv4). */
export function clientAddress(config: Pick<Config, 'trustProxy'>, request: Request, server?: PeerSource | null): string {
  const peer = server?.requestIP(request)?.address ?? peers.get(request)
  return addressBehind(config.trustProxy, peer ?? null, request.headers.get('x-forwarded-for'))
}

/**
 * The walk itself: from the peer leftwards through X-Forwarded-For while each address is a trusted proxy; the
 * first one that is not is the client. `true` trusts the peer only (one proxy). An entry that is not an address
 * ends the walk at the last address a trusted proxy vouched for, so no made-up string becomes a client.
 */
export function addressBehind(trust: Config['trustProxy'], peer: string | null, forwardedFor: string | null): string {
  const from = peer === null ? null : canonicalAddress(peer)
  if (from === null) return UNKNOWN_ADDRESS
  const proxies = trust === true || trust === false ? null : proxyList(trust)
  const trusted = (address: string) => proxies?.check(address, isIP(address) === 6 ? 'ipv6' : 'ipv4') === true
  if (trust === false || (trust !== true && !trusted(from)) || !forwardedFor) return from
  const hops = forwardedFor.split(',')
  let client = from
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = canonicalAddress(hops[i]!)
    if (hop === null) break
    client = hop
    if (!trusted(hop)) break
  }
  return client
}

const lists = new Map<string, BlockList>()

function proxyList(entries: string[]): BlockList {
  const id = entries.join(',')
  let list = lists.get(id)
  if (!list) {
    list = new BlockList()
    for (const entry of entries) {
      const [address = '', bits] = entry.split('/')
      const type = isIP(address) === 6 ? 'ipv6' : 'ipv4'
      if (bits === undefined) list.addAddress(address, type)
      else list.addSubnet(address, Number(bits), type)
    }
    lists.set(id, list)
  }
  return list
}

/**
 * One spelling per address, so a client cannot become many by writing its address differently: ports and
 * brackets dropped ("[::1]:443", "1.2.3.4:80"), IPv6 lower-cased and compressed, IPv4-mapped IPv6 as IPv4.
 * Null when it is no address at all.
 */
export function canonicalAddress(value: string): string | null {
  let address = value.trim()
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address)
  if (bracketed) address = bracketed[1]!
  else if (/^[\d.]+:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(':'))
  address = address.replace(/%.*$/, '')
  const version = isIP(address)
  if (version === 4) return address
  if (version !== 6) return null
  const compressed = new URL(`http://[${address}]`).hostname.slice(1, -1)
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(compressed)
  if (!mapped) return compressed
  const [high, low] = [Number.parseInt(mapped[1]!, 16), Number.parseInt(mapped[2]!, 16)]
  return [high >> 8, high & 255, low >> 8, low & 255].join('.')
}
