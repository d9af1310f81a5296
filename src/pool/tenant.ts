// Who a request speaks for: an API key's name and its weight in the fair
// share of inference slots. Requests without keys configured share one.

export interface Tenant {
  /** The key's name from the keys file, or 'anonymous' when keys are off. */
  name: string
  /** Relative share of inference slots when several tenants wait (default 1). */
  weight: number
}

export const ANONYMOUS: Tenant = Object.freeze({ name: 'anonymous', weight: 1 })
