// The key check on a small Koa app (no voices needed): where a key may come
// from, the public paths, 401 and 403 bodies, the upgrade's query parameter,
// reloads of the keys file (good and bad edits) and the per-key metrics'
// label set. The service's own routes with keys are in auth.test.ts.

import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import Router from '@koa/router'
import Koa from 'koa'
import t from 'tap'
import { ApiAccess } from '../../src/access/access.js'
import { KeyStore } from '../../src/access/key-store.js'
import { parseKeysFile } from '../../src/access/keys-file.js'
import { admission, requireAdmin } from '../../src/http/auth/middleware.js'
import { Quotas } from '../../src/access/quotas.js'
import { serviceErrors } from '../../src/http/app.js'
import type { ChorusState } from '../../src/http/context.js'
import { accessCounts, ServiceMetrics } from '../../src/http/metrics.js'
import { createLogger } from '../../src/shared/logger.js'
import { requestId } from '../../src/shared/request-id.js'
import { request } from '../helpers/service.js'

const USER = 'sk-user-0123456789abcdef'
const ADMIN = 'sk-admin-0123456789abcdef'
const LIMITED = 'sk-limited-0123456789abcdef'
const KEYS = { [USER]: { name: 'bot-a', weight: 3 }, [ADMIN]: { name: 'ops', role: 'admin' }, [LIMITED]: { name: 'limited', quotas: { requests_per_minute: 1 } } }

const dir = await mkdtemp(join(tmpdir(), 'chorus-auth-'))
const file = join(dir, 'keys.json')
await writeFile(file, JSON.stringify({ keys: KEYS }))
t.teardown(() => rm(dir, { recursive: true, force: true }))

const logs: Array<Record<string, unknown>> = []
const log = createLogger('chorus-tts', 'debug', new Writable({
  write (chunk, _encoding, done) {
    for (const line of String(chunk).split('\n')) if (line !== '') logs.push(JSON.parse(line))
    done()
  }
}))
const zero = (): number => 0
const metrics = new ServiceMetrics({ pendingRequests: zero, queuedSentences: zero, loadedVoices: zero, cacheBytes: zero, voiceMemory: () => new Map(), voiceMemoryBudget: zero, voiceMemoryUsed: zero, inferencesRunning: zero, inferenceSlotSeconds: zero, inferenceWaitSeconds: zero, engineTasks: () => [], bufferedBytes: zero })

async function serve (access: ApiAccess, metricsPublic = false): Promise<string> {
  const app = new Koa<ChorusState>()
  const router = new Router<ChorusState>()
  router.get('/voices', ctx => { ctx.body = { tenant: ctx.state.admitted?.tenant.name, share: ctx.state.admitted?.tenant.share } })
  router.get('/health', ctx => { ctx.body = { status: 'ok' } })
  router.get('/metrics', async ctx => { ctx.body = await metrics.registry.metrics() })
  router.post('/voices/install', requireAdmin(undefined), ctx => { ctx.body = { installed: true } })
  app.use(serviceErrors())
  app.use(requestId(log))
  app.use(admission(access, { metricsPublic }))
  app.use(router.routes())
  const server: Server = app.listen(0, '127.0.0.1')
  await new Promise(resolve => server.once('listening', resolve))
  t.teardown(() => new Promise<void>(resolve => server.close(() => resolve())))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

const store = new KeyStore(file, parseKeysFile(JSON.stringify({ keys: KEYS }), file), log)
const access = new ApiAccess(store, new Quotas(() => performance.now(), 60_000), accessCounts(metrics), { allowedOrigins: [] })
const base = await serve(access)

t.test('without a key: 401, the standard body and a Bearer challenge', async t => {
  const missing = await request(`${base}/voices`)
  t.equal(missing.status, 401)
  t.equal(missing.headers.get('www-authenticate'), 'Bearer realm="chorus"')
  t.same(missing.json, { error: 'An API key is required: send it as "Authorization: Bearer <key>" or "xi-api-key: <key>"', code: 'ERR_UNAUTHORIZED' })
  const attempts: Array<Record<string, string>> = [{ Authorization: 'Bearer sk-wrong-0123456789abcdef' }, { Authorization: `Basic ${USER}` }, { 'xi-api-key': 'nope' }, { Authorization: `Bearer ${USER}x` }]
  for (const headers of attempts) {
    const wrong = await request(`${base}/voices`, { headers })
    t.equal(wrong.status, 401, JSON.stringify(Object.keys(headers)))
    t.same(wrong.json, { error: 'The API key is not valid', code: 'ERR_UNAUTHORIZED' })
  }
  const fromQuery = await request(`${base}/voices?api_key=${USER}`)
  t.equal(fromQuery.status, 401, 'plain HTTP never takes the key from the URL')
  t.notOk(JSON.stringify(logs).includes(USER), 'no key in any log line')
})

t.test('a key as Bearer or xi-api-key: the request speaks for its name and weight', async t => {
  const bearer = await request(`${base}/voices`, { headers: { Authorization: `Bearer ${USER}` } })
  t.equal(bearer.status, 200)
  t.same(bearer.json, { tenant: 'bot-a', share: { name: 'bot-a', weight: 3 } })
  const lower = await request(`${base}/voices`, { headers: { Authorization: `bearer  ${USER}` } })
  t.equal(lower.status, 200, 'the scheme is case-insensitive')
  const xi = await request(`${base}/voices`, { headers: { 'xi-api-key': ADMIN } })
  t.same(xi.json, { tenant: 'ops', share: { name: 'ops', weight: 1 } })
})

t.test('public paths need no key; /metrics does unless TTS_METRICS_PUBLIC', async t => {
  t.equal((await request(`${base}/health`)).status, 200)
  t.equal((await request(`${base}/metrics`)).status, 401)
  t.equal((await request(`${base}/metrics`, { headers: { Authorization: `Bearer ${USER}` } })).status, 200)
  const open = await serve(access, true)
  t.equal((await request(`${open}/metrics`)).status, 200)
})

t.test('requireAdmin: 403 for a user key, passes an admin key', async t => {
  const user = await request(`${base}/voices/install`, { method: 'POST', headers: { Authorization: `Bearer ${USER}` } })
  t.equal(user.status, 403)
  t.same(user.json, { error: 'The key "bot-a" has the role "user": this action needs a key with the role "admin"', code: 'ERR_FORBIDDEN', role: 'user' })
  const admin = await request(`${base}/voices/install`, { method: 'POST', headers: { Authorization: `Bearer ${ADMIN}` } })
  t.equal(admin.status, 200)
  t.equal((await request(`${base}/voices/install`, { method: 'POST' })).status, 401)
})

t.test('a WebSocket upgrade may carry the key as ?api_key=, and counts as a request', async t => {
  const upgrade = (headers: Record<string, string>, url: string): ReturnType<typeof access.admit> => access.admit({ method: 'GET', headers, url, upgrade: true, connection: {}, open: false })
  const admitted = upgrade({}, `/v1/text-to-speech/x/stream-input?api_key=${encodeURIComponent(USER)}`)
  t.same(admitted.tenant.share, { name: 'bot-a', weight: 3 })
  t.same(upgrade({ 'xi-api-key': ADMIN }, '/ws').tenant.name, 'ops')
  t.throws(() => upgrade({}, '/ws?api_key=sk-wrong-0123456789abcdef'), { status: 401, code: 'ERR_UNAUTHORIZED' })
  t.throws(() => upgrade({}, '/ws'), { status: 401, message: /is required/ })
  upgrade({}, `/ws?api_key=${LIMITED}`)
  t.throws(() => upgrade({}, `/ws?api_key=${LIMITED}`), { status: 429, code: 'ERR_QUOTA_EXCEEDED', headers: { 'Retry-After': /^\d+$/ } })
})

t.test('keys off: everyone is anonymous, as before keys existed; admin routes need TTS_ADMIN_TOKEN, off without it', async t => {
  const open = await serve(new ApiAccess(undefined, new Quotas(() => performance.now(), 60_000), accessCounts(metrics), { allowedOrigins: [] }))
  const reply = await request(`${open}/voices`)
  t.equal(reply.status, 200)
  t.match(reply.json, { tenant: 'anonymous', share: { name: /^anonymous#\d+$/, weight: 1, countedAs: 'anonymous' } }, 'counted as anonymous, its connection its own share')
  t.equal((await request(`${open}/voices`, { headers: { Authorization: 'Bearer whatever' } })).status, 200, 'any Authorization is ignored')
  const admin = await request(`${open}/voices/install`, { method: 'POST' })
  t.equal(admin.status, 403)
  t.equal(admin.json?.code, 'ERR_ADMIN_DISABLED')
})

t.test('reloads: a good edit takes effect, a bad one keeps the previous keys and says why', async t => {
  const NEW = 'sk-new-0123456789abcdefgh'
  await writeFile(file, JSON.stringify({ keys: { [NEW]: { name: 'bot-new' }, [USER]: { name: 'bot-a', weight: 3 } } }))
  t.equal(await store.reload(), true)
  t.equal((await request(`${base}/voices`, { headers: { Authorization: `Bearer ${NEW}` } })).status, 200, 'the new key works')
  t.equal((await request(`${base}/voices`, { headers: { Authorization: `Bearer ${ADMIN}` } })).status, 401, 'the removed key no longer does')
  const exposition = await metrics.registry.metrics()
  t.notMatch(exposition, /key="ops"/, 'a removed key\'s series are gone')
  t.notMatch(exposition, /key="limited"/)
  t.match(exposition, /chorus_key_requests_total\{key="bot-a"\} \d+/)
  t.match(exposition, /chorus_key_refusals_total\{key="anonymous",status="401"\} \d+/)

  await writeFile(file, '{"keys": {"short": {"name": "bot-b"}}, "extra": 1}')
  t.equal(await store.reload(), false)
  t.equal((await request(`${base}/voices`, { headers: { Authorization: `Bearer ${NEW}` } })).status, 200, 'the previous keys stay in force')
  const warning = logs.find(line => line.msg === 'API keys file not reloaded: keeping the previous keys')
  t.match(warning, { level: 40, file, reason: /^Expected only the field "keys" for the file in TTS_API_KEYS_FILE/ })
  const warnings = logs.filter(line => line.msg === warning?.msg).length
  await writeFile(file, '{"keys": {"short": {"name": "bot-b"}}, "extra": 2}')
  await store.reload()
  t.equal(logs.filter(line => line.msg === warning?.msg).length, warnings, 'the same problem is logged once')
  await rm(file)
  t.equal(await store.reload(), false, 'a deleted file keeps the keys too')
  t.match(logs.at(-1), { msg: warning?.msg, reason: /ENOENT/ })
  t.notOk(JSON.stringify(logs).includes('short'), 'not even a malformed key is logged')
})
