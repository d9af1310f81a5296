// The scaled stack (compose.scale.yaml behind deploy/haproxy/haproxy.cfg)
// and the Kubernetes manifests (deploy/kubernetes/, Envoy in front) are one
// topology written twice: the same drain grace period and ordering of
// timeouts, the same readiness path, the same hash key for speech (the
// X-Chorus-Voice header, else the voice in /v1/text-to-speech/{voice}/...),
// and MCP sessions kept on the tool server that made them. Read from the
// files themselves; npm run scale:test brings the compose side up for real.

import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { parse, parseAllDocuments } from 'yaml'
import { PACKAGE_ROOT } from '../../src/package-root.js'
import { loadServiceConfig } from '../../src/service/config.js'
import { VOICE_HEADER } from '../../src/synthesis/tts-request.js'

const K8S = join(PACKAGE_ROOT, 'deploy/kubernetes')
/** YAML merge keys (`<<: *tts`), as Compose reads them. */
const compose = parse(await readFile(join(PACKAGE_ROOT, 'compose.scale.yaml'), 'utf8'), { merge: true }) as Record<string, any>
function missing (what: string): never {
  throw new Error(`missing: ${what}`)
}
const manifests = new Map<string, any>()
for (const file of ['base/tts-config.yaml', 'base/tts-deployment.yaml', 'base/tools-deployment.yaml', 'base/tools-service.yaml']) {
  for (const doc of parseAllDocuments(await readFile(join(K8S, file), 'utf8'))) {
    const manifest = doc.toJS()
    manifests.set(`${String(manifest.kind)}/${String(manifest.metadata.name)}`, manifest)
  }
}
const k8s = (key: string): any => manifests.get(key) ?? missing(`${key} in deploy/kubernetes`)
const envoy = parse(await readFile(join(K8S, 'envoy/envoy.yaml'), 'utf8'))
const envoyRoutes: any[] = envoy.static_resources.listeners[0].filter_chains[0].filters[0].typed_config.route_config.virtual_hosts[0].routes

/** haproxy.cfg as sections ("backend tools") of directive lines. */
function haproxySections (text: string): Map<string, string[]> {
  const sections = new Map<string, string[]>()
  let current: string[] | undefined
  for (const raw of text.split('\n')) {
    const line = raw.replace(/#.*$/, '').trimEnd()
    if (line.trim() === '') continue
    if (!/^\s/.test(line)) sections.set(line, current = [])
    else if (current !== undefined) current.push(line.trim().replace(/\s+/g, ' '))
  }
  return sections
}
const haproxy = haproxySections(await readFile(join(PACKAGE_ROOT, 'deploy/haproxy/haproxy.cfg'), 'utf8'))
const section = (name: string): string[] => haproxy.get(name) ?? missing(`"${name}" in haproxy.cfg`)
const directive = (name: string, prefix: string): string | undefined => section(name).find(line => line.startsWith(prefix))
const seconds = (value: string): number => {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h)?$/.exec(value) ?? missing(`a duration, not ${value}`)
  return Number(match[1]) * { ms: 0.001, s: 1, m: 60, h: 3600 }[match[2] as 'ms' | 's' | 'm' | 'h' ?? 's']
}

const ttsReplicas = Object.entries<Record<string, any>>(compose.services).filter(([name]) => name.startsWith('tts-'))
const toolReplicas = Object.keys(compose.services).filter(name => name.startsWith('tools-'))

t.test('the drain: the same grace period, above the request timeout, below the orchestrator\'s', async t => {
  const configMap = k8s('ConfigMap/chorus-tts').data
  const pod = k8s('Deployment/chorus-tts').spec.template.spec
  const preStop = Number(pod.containers[0].lifecycle.preStop.exec.command[1])
  /** The two settings the drain's order is made of, read as the service reads them. */
  const timing = (env: Record<string, string>): ReturnType<typeof loadServiceConfig> => loadServiceConfig({
    TTS_VOICE_MEMORY_BYTES: '1000000',
    ...(env.TTS_TIMEOUT_SECONDS !== undefined ? { TTS_TIMEOUT_SECONDS: env.TTS_TIMEOUT_SECONDS } : {}),
    ...(env.TTS_DRAIN_GRACE_SECONDS !== undefined ? { TTS_DRAIN_GRACE_SECONDS: env.TTS_DRAIN_GRACE_SECONDS } : {})
  })
  const k8sService = timing(configMap)
  t.ok(ttsReplicas.length >= 2, 'compose runs two TTS replicas or more')
  for (const [name, service] of ttsReplicas) {
    const composeService = timing(service.environment)
    t.equal(composeService.drainGraceMs, k8sService.drainGraceMs, `${name}: TTS_DRAIN_GRACE_SECONDS as in the ConfigMap`)
    t.equal(composeService.timeoutMs, k8sService.timeoutMs, `${name}: TTS_TIMEOUT_SECONDS as in the ConfigMap`)
    t.ok(composeService.drainGraceMs > composeService.timeoutMs, `${name}: the drain outlasts any request`)
    t.ok(seconds(service.stop_grace_period) * 1000 > composeService.drainGraceMs, `${name}: stop_grace_period above the drain`)
    t.equal(service.environment.TTS_REPLICA_NAME, name, `${name} names itself on its answers`)
  }
  t.ok(pod.terminationGracePeriodSeconds * 1000 > k8sService.drainGraceMs + preStop * 1000, 'Kubernetes: terminationGracePeriodSeconds above the preStop pause and the drain')
  t.ok(seconds(directive('defaults', 'timeout server ')?.split(' ')[2] ?? '') * 1000 > k8sService.timeoutMs, 'HAProxy waits for an answer longer than the service takes')
  const httpRoute = envoyRoutes.find(route => route.match.prefix === '/').route
  t.ok(seconds(httpRoute.timeout) * 1000 > k8sService.timeoutMs, 'and so does Envoy')
})

t.test('readiness: /ready takes a replica out, on both sides', async t => {
  t.ok(section('backend tts_by_voice').includes('http-check send meth GET uri /ready ver HTTP/1.1 hdr Host localhost'), 'HAProxy checks /ready')
  t.ok(section('backend tts_by_voice').includes('http-check expect status 200'))
  for (const server of section('backend tts_any').filter(line => line.startsWith('server '))) t.match(server, / track tts_by_voice\//, 'the other backend follows the same checks')
  for (const [name, service] of ttsReplicas) t.match(service.healthcheck.test.join(' '), '127.0.0.1:8995/ready', `${name}'s health check`)
  t.equal(k8s('Deployment/chorus-tts').spec.template.spec.containers[0].readinessProbe.httpGet.path, '/ready', 'the readiness probe')
  t.equal(envoy.static_resources.clusters[0].health_checks[0].http_health_check.path, '/ready', 'Envoy\'s health check')
  const servers = section('backend tts_by_voice').filter(line => line.startsWith('server ')).map(line => line.split(' ')[1])
  t.same(servers.sort(), ttsReplicas.map(([name]) => name).sort(), 'HAProxy knows every TTS replica of the compose file')
})

/** Each side's key for a request, as its configuration computes it. */
function haproxyKey (path: string, headers: Record<string, string>): string | undefined {
  const lines = section('frontend speech')
  t.ok(lines.includes(`http-request set-var(txn.voice) req.hdr(${VOICE_HEADER})`), 'HAProxy reads the header first')
  t.ok(lines.includes('http-request set-var(txn.voice) path,field(4,/) if { path_beg /v1/text-to-speech/ } !{ var(txn.voice) -m found }'), 'then the path')
  const header = Object.entries(headers).find(([name]) => name.toLowerCase() === VOICE_HEADER.toLowerCase())?.[1]
  if (header !== undefined) return header
  // field(4,/): the fourth of the path's fields between slashes.
  return path.startsWith('/v1/text-to-speech/') ? path.split('/')[3] : undefined
}

function envoyKey (path: string, headers: Record<string, string>): string | undefined {
  const route = envoyRoutes.find(r => path.startsWith(r.match.prefix)).route
  const policy = route.hash_policy[0].header
  if (policy.header_name !== ':path') return headers[policy.header_name]
  const rewrite = policy.regex_rewrite
  t.equal(rewrite.substitution, '\\1')
  return new RegExp(rewrite.pattern.regex).exec(path)?.[1]
}

t.test('the hash key: the voice, from the header or the WebSocket\'s path, the same on both sides', async t => {
  t.ok(section('backend tts_by_voice').includes('balance hash var(txn.voice)'))
  t.ok(section('backend tts_by_voice').includes('hash-type consistent'), 'a replica leaving moves only its voices')
  t.ok(section('backend tts_any').includes('balance leastconn'), 'without a voice: least connections')
  t.ok(section('frontend speech').includes('use_backend tts_by_voice if { var(txn.voice) -m found }'))
  t.equal(envoy.static_resources.clusters[0].lb_policy, 'RING_HASH')
  const cases: Array<[string, Record<string, string>, string | undefined]> = [
    ['/tts', { [VOICE_HEADER]: 'en_US-lessac-medium' }, 'en_US-lessac-medium'],
    ['/v1/text-to-speech/en_GB-vctk-medium/stream-input?output_format=pcm_16000', {}, 'en_GB-vctk-medium'],
    ['/v1/text-to-speech/en_US-ryan-medium/multi-stream-input', {}, 'en_US-ryan-medium'],
    ['/v1/text-to-speech/en_US-ryan-medium', {}, 'en_US-ryan-medium'],
    ['/tts', {}, undefined]
  ]
  for (const [path, headers, voice] of cases) {
    t.equal(haproxyKey(path, headers), voice, `HAProxy: ${path}`)
    t.equal(envoyKey(path, headers), voice, `Envoy: ${path}`)
  }
  t.ok(envoy.static_resources.listeners[0].filter_chains[0].filters[0].typed_config.upgrade_configs.some((u: any) => u.upgrade_type === 'websocket'), 'Envoy passes WebSockets')
})

t.test('MCP: a session stays on the tool server that made it, on both sides', async t => {
  const transport = await readFile(join(PACKAGE_ROOT, 'src/tools/http-transport.ts'), 'utf8')
  const header = /const SESSION_HEADER = '([^']+)'/.exec(transport)?.[1]
  t.equal(header, 'Mcp-Session-Id', 'the header the tool server issues')
  const tools = section('backend tools')
  t.ok(tools.includes(`stick store-response res.hdr(${header as string})`), 'HAProxy learns each session\'s server from the answer that made it')
  t.ok(tools.includes(`stick on req.hdr(${header as string})`), 'and sends the session\'s requests there')
  const expire = seconds(/ expire (\S+)/.exec(tools.find(line => line.startsWith('stick-table ')) ?? '')?.[1] ?? '')
  const service = k8s('Service/chorus-tools').spec
  t.equal(service.sessionAffinity, 'ClientIP', 'Kubernetes: a client stays on one pod')
  t.equal(service.sessionAffinityConfig.clientIP.timeoutSeconds, expire, 'for as long as HAProxy keeps a session')
  t.equal(toolReplicas.length, k8s('Deployment/chorus-tools').spec.replicas, 'the same number of tool servers')
  const servers = tools.filter(line => line.startsWith('server ')).map(line => line.split(' ')[1])
  t.same(servers.sort(), toolReplicas.sort(), 'HAProxy knows every tool server of the compose file')
})
