// Who a request speaks for: its tenant. With keys, the key's name (its
// metrics label and quota account) and the key's weight in the fair share of
// inference slots. Without a key, the one name "anonymous" for metrics and
// quotas, so their label set never grows with clients, but each client
// connection its own share of the slots: one client's long requests cannot
// starve another's, as one key's cannot starve another key's.

import type { Share } from '../synthesis/speech-admission.js'
import type { ApiKey } from './keys-file.js'

/** The name requests without a key count under (a keys file may not use it). */
export const ANONYMOUS = 'anonymous'

export interface Tenant {
  /** The key's name, or "anonymous": the per-key metrics' label and the quotas' account. */
  name: string
  /** The key it presented; undefined without one (keys off, or a public path). */
  key?: ApiKey
  /** Its share of inference slots. */
  share: Share
}

export function keyTenant (key: ApiKey): Tenant {
  return { name: key.name, key, share: { name: key.name, weight: key.weight } }
}

/**
 * One share per client connection, for requests without a key. Named
 * "anonymous#<n>" ("#" is in no key's name) and counted as "anonymous";
 * held only as long as the connection object lives.
 */
export class ConnectionShares {
  private readonly shares = new WeakMap<object, Share>()
  private next = 1

  of (connection: object): Tenant {
    let share = this.shares.get(connection)
    if (share === undefined) {
      share = Object.freeze({ name: `${ANONYMOUS}#${this.next++}`, weight: 1, countedAs: ANONYMOUS })
      this.shares.set(connection, share)
    }
    return { name: ANONYMOUS, share }
  }
}
