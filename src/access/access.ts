// Who may use the service, and how much: the one admission every way in
// calls before any work. admit() decides a request at its door (an HTTP
// request before routing, a WebSocket upgrade before it is accepted): where
// it comes from (host and page, request-source.ts), its key (401), its
// key's requests per minute (429), and its tenant. Each speech it asks for
// then goes through Admission.speech(): the key's audio and concurrency
// quotas (429), and the registration that the speech service requires
// (SpeechRequest.admission), so its audio is counted against the key and
// its work scheduled in the key's share. Without a keys file every request
// is anonymous and unlimited, each connection its own share (tenant.ts).

import type { IncomingHttpHeaders } from 'node:http'
import type { SpeechAdmission } from '../synthesis/speech-admission.js'
import { isChorusError } from '../errors.js'
import { unauthorized } from './errors.js'
import type { KeyStore } from './key-store.js'
import { presentedKey } from './presented-key.js'
import type { Quotas } from './quotas.js'
import { checkSource, type SourceRules } from './request-source.js'
import { ANONYMOUS, ConnectionShares, keyTenant, type Tenant } from './tenant.js'

/** A request at a door, as admission reads it. */
export interface Door {
  method: string
  headers: IncomingHttpHeaders
  /** The request target as sent: a WebSocket upgrade's may carry the key (api_key). */
  url: string
  upgrade: boolean
  /** The client's connection (its socket): without a key, its own share of the slots. */
  connection: object
  /** A path anyone may use (probes, the playground): no key is asked. */
  open: boolean
}

/** A request let in, and who it speaks for. */
export interface Admission {
  tenant: Tenant
  /** Whether keys are configured at all. */
  keysRequired: boolean
  /** CORS answers for an allowed foreign page (empty for other requests). */
  cors: Record<string, string>
  /** A browser's preflight from an allowed page: to be answered at once; nothing was admitted. */
  preflight: boolean
  /** Admits one speech against the key's audio and concurrency quotas (429
   * beyond) and registers it: what SpeechRequest.admission takes. */
  speech: () => SpeechAdmission
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
  private readonly connections = new ConnectionShares()

  constructor (readonly store: KeyStore | undefined, readonly quotas: Quotas, private readonly counts: AccessCounts, private readonly rules: SourceRules) {
    store?.on('reloaded', names => {
      quotas.retain(names)
      counts.retain(names)
    })
  }

  get keysRequired (): boolean {
    return this.store !== undefined
  }

  /**
   * The one check at every door: host and page (421, 403), key (401), the
   * key's requests per minute (429), then the tenant. A refusal after the
   * page was allowed carries its CORS answers, so the page can read it.
   */
  admit (door: Door): Admission {
    const source = checkSource(door.method, door.headers, this.rules)
    if (source.preflight) {
      const speech = (): never => { throw new Error('A preflight asks for no speech') }
      return { tenant: this.connections.of(door.connection), keysRequired: this.keysRequired, cors: source.cors, preflight: true, speech }
    }
    try {
      const tenant = this.tenantOf(door)
      this.admitRequest(tenant)
      return { tenant, keysRequired: this.keysRequired, cors: source.cors, preflight: false, speech: () => this.admitSpeech(tenant) }
    } catch (error) {
      if (isChorusError(error)) Object.assign(error.headers, source.cors)
      throw error
    }
  }

  private tenantOf (door: Door): Tenant {
    if (this.store === undefined || door.open) return this.connections.of(door.connection)
    const presented = presentedKey(door.headers, door.upgrade ? door.url : undefined)
    const key = presented === undefined ? undefined : this.store.find(presented)
    if (key === undefined) {
      this.counts.refused(ANONYMOUS, 401)
      throw unauthorized(presented !== undefined)
    }
    return keyTenant(key)
  }

  /** Counts a request against its key's requests per minute (429 beyond). */
  private admitRequest (tenant: Tenant): void {
    this.counts.request(tenant.name)
    if (tenant.key === undefined) return
    try {
      this.quotas.admitRequest(tenant.key)
    } catch (error) {
      this.counts.refused(tenant.name, 429)
      throw error
    }
  }

  private admitSpeech (tenant: Tenant): SpeechAdmission {
    let release = (): void => {}
    if (tenant.key !== undefined) {
      try {
        release = this.quotas.admitStream(tenant.key)
      } catch (error) {
        this.counts.refused(tenant.name, 429)
        throw error
      }
    }
    return {
      tenant: tenant.name,
      share: tenant.share,
      charge: seconds => {
        this.counts.audio(tenant.name, seconds)
        this.quotas.chargeAudio(tenant.name, seconds)
      },
      release
    }
  }

  close (): void {
    this.store?.close()
  }
}
