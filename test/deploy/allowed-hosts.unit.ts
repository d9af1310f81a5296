// TTS_ALLOWED_HOSTS in the shipped deployments: set, valid for the
// service's own reader, and naming every name the files themselves give the
// service (compose's service name; the Kubernetes Services), so a client
// that follows the files is never refused with 421.

import { readdirSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { parse, parseAllDocuments } from 'yaml'
import { hostAllowed } from '../../src/access/request-source.js'
import { PACKAGE_ROOT } from '../../src/package-root.js'
import { loadServiceConfig } from '../../src/service/config.js'

t.test('compose: the host\'s name and the service name on the stack\'s network', async t => {
  const compose = parse(await readFile(join(PACKAGE_ROOT, 'compose.yaml'), 'utf8'))
  const setting = String(compose.services.tts.environment.TTS_ALLOWED_HOSTS)
  const value = /^\$\{CHORUS_TTS_ALLOWED_HOSTS:-(.+)\}$/.exec(setting)?.[1]
  t.ok(value !== undefined, 'overridable from the environment')
  const hosts = loadServiceConfig({ TTS_ALLOWED_HOSTS: value as string }).allowedHosts
  for (const host of ['localhost:8995', 'tts:8995', '127.0.0.1:8995']) t.ok(hostAllowed(host, hosts), host)
  t.notOk(hostAllowed('attacker.example:8995', hosts))
})

t.test('Kubernetes: every Service, short and in cluster DNS, and the probes\' IP', async t => {
  const config = parse(await readFile(join(PACKAGE_ROOT, 'deploy/kubernetes/base/tts-config.yaml'), 'utf8'))
  const hosts = loadServiceConfig({ TTS_ALLOWED_HOSTS: config.data.TTS_ALLOWED_HOSTS }).allowedHosts
  const services: string[] = []
  for (const folder of ['base', 'envoy']) {
    const dir = join(PACKAGE_ROOT, 'deploy/kubernetes', folder)
    for (const file of readdirSync(dir).filter(name => name.endsWith('.yaml'))) {
      for (const doc of parseAllDocuments(await readFile(join(dir, file), 'utf8'))) {
        const manifest = doc.toJS()
        // The TTS service's own, and the affinity gateway's in front of it (not the tool server's).
        if (manifest?.kind === 'Service' && manifest.spec?.clusterIP !== 'None' && String(manifest.metadata.name).startsWith('chorus-tts')) services.push(manifest.metadata.name)
      }
    }
  }
  t.ok(services.length >= 2, `Services: ${services.join(', ')}`)
  for (const name of services) {
    t.ok(hostAllowed(`${name}:8995`, hosts), name)
    t.ok(hostAllowed(`${name}.chorus.svc.cluster.local:8995`, hosts), `${name} in cluster DNS`)
  }
  t.ok(hostAllowed('10.244.1.7:8995', hosts), 'a probe by pod IP')
})
