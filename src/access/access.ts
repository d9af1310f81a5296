// Who may use the service, and how much: the keys in force (KeyStore) and
// the quotas per key (Quotas), behind the few calls every protocol makes.
// HTTP routes get them from the middleware (middleware.ts); the WebSocket
// upgrade calls authenticateUpgrade() and, per speech, openStream(). Without
// a keys file every request is anonymous and nothing is limited, as before.

import type { IncomingHttpHeaders } from 'node:http'
import { ANONYMOUS, type Tenant } from '../pool/tenant.js'
import { unauthorized } from './errors.js'
import type { KeyStore } from './key-store.js'
import type { ApiKey } from './keys-file.js'
import { presentedKey } from './presented-key.js'
import type { Quotas } from './quotas.js'

/** Who a request speaks for. */
export interface Identity {
  /** The key it presented; undefined when keys are off or the path is public. */
  key?: ApiKey
  tenant: Tenant
  /** Whether keys are configured at all. */
  keysRequired: boolean
}

/** What the per-key metrics count; names are the keys file's plus "anonymous". */
export interface AccessCounts {
  request: (name: string) => void
  refused: (name: string, status: number) => void
  audio: (name: string, seconds: number) => void
  /** After a reload: forget the series of names no longer in the file. */
  retain: (names: ReadonlySet<string>) => void
}

export class ApiAccess {
  constructor (readonly store: KeyStore | undefined, readonly quotas: Quotas, private readonly counts: AccessCounts) {
    store?.on('reloaded', names => {
      quotas.retain(names)
      counts.retain(names)
    })
  }

  get keysRequired (): boolean {
    return this.store !== undefined
  }

  /** Anyone, for the public paths (/health, /ready) and with keys off. */
  anonymous (): Identity {
    return { tenant: ANONYMOUS, keysRequired: this.keysRequired }
  }

  /** The request's identity from its headers (and, for an upgrade, its URL); 401 without a valid key. */
  authenticate (headers: IncomingHttpHeaders, upgradeUrl?: string): Identity {
    if (this.store === undefined) return this.anonymous()
    const presented = presentedKey(headers, upgradeUrl)
    const key = presented === undefined ? undefined : this.store.find(presented)
    if (key === undefined) {
      this.counts.refused(ANONYMOUS.name, 401)
      throw unauthorized(presented !== undefined)
    }
    return { key, tenant: { name: key.name, weight: key.weight }, keysRequired: true }
  }

  /**
   * For the WebSocket helper, on an upgrade: the key may also come as the
   * query parameter api_key. Counts the upgrade as one request of its key;
   * throws the 401 or 429 to answer the upgrade with.
   */
  authenticateUpgrade (headers: IncomingHttpHeaders, url: string): Identity {
    const identity = this.authenticate(headers, url)
    this.admitRequest(identity)
    return identity
  }

  /** Counts a request against its key's requests per minute (429 beyond). */
  admitRequest (identity: Identity): void {
    this.counts.request(identity.tenant.name)
    if (identity.key === undefined) return
    try {
      this.quotas.admitRequest(identity.key)
    } catch (error) {
      this.counts.refused(identity.tenant.name, 429)
      throw error
    }
  }

  /** Admits one speech against its key's audio and concurrency quotas
   * (429 beyond); call the release when its response has ended. */
  openStream (identity: Identity): () => void {
    if (identity.key === undefined) return () => {}
    try {
      return this.quotas.admitStream(identity.key)
    } catch (error) {
      this.counts.refused(identity.tenant.name, 429)
      throw error
    }
  }

  /** Audio made for a tenant: its metrics and its audio quota. */
  chargeAudio (tenant: Tenant, seconds: number): void {
    this.counts.audio(tenant.name, seconds)
    this.quotas.chargeAudio(tenant.name, seconds)
  }

  close (): void {
    this.store?.close()
  }
}
