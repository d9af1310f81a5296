// The fairness benchmark's tenants as the service knows them: an API keys
// file (docs/security.md#api-keys) with one key per tenant, role user,
// equal weights and no quotas (a quota would refuse the load under test),
// written into the run's output folder for the service it starts. The keys
// are random per run and good only for that loopback service.

import { randomBytes } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'

export interface TenantKeys {
  /** The file to hand the service as TTS_API_KEYS_FILE. */
  file: string
  /** Tenant name → its key. */
  keys: Map<string, string>
}

export async function writeTenantKeys (dir: string, tenants: readonly string[]): Promise<TenantKeys> {
  const keys = new Map(tenants.map(name => [name, randomBytes(24).toString('base64url')]))
  const entries = Object.fromEntries([...keys].map(([name, key]) => [key, { name, role: 'user', weight: 1 }]))
  const file = join(dir, 'keys.json')
  await writeFile(file, JSON.stringify({ keys: entries }, null, 2) + '\n', { mode: 0o600 })
  return { file, keys }
}

/** The key of `tenant`; a name the file does not hold is a bug of the caller. */
export function keyOf (keys: TenantKeys, tenant: string): string {
  const key = keys.keys.get(tenant)
  if (key === undefined) throw new Error(`No key was written for tenant ${tenant}`)
  return key
}
