// Issue 42's findings 3 and 8. A voice download is bounded in time twice: a
// stall timeout (no response or byte for that long) and an overall deadline
// (a source that trickles a byte every few milliseconds never stalls); both
// are settings of the service, checked at start-up. DELETE of a voice being
// installed cancels the install, and the next admin request is answered.
// The source's redirects to loopback or private addresses are refused,
// unless the configured source itself is on one. Limits are small here, so
// nothing waits on real minutes.

import { readdir, rm } from 'node:fs/promises'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { ConfigError } from '../../src/errors.js'
import { loadServiceConfig } from '../../src/service/config.js'
import { fetchVoices } from '../../src/voices/fetch.js'
import { isInternalAddress } from '../../src/voices/redirect-policy.js'
import { eventually } from '../helpers/hang-guard.js'
import { request, startTestService } from '../helpers/service.js'
import { makeMirror } from './fixtures/mirror.js'
import { PREFIX, serveMirror } from './fixtures/mirror-server.js'

const scratch = await mkdtemp(join(tmpdir(), 'chorus-download-limits-'))
t.teardown(() => rm(scratch, { recursive: true, force: true }))
const mirror = await makeMirror([{ name: 'en_US-trickle-medium' }, { name: 'en_US-stalled-medium' }, { name: 'en_US-moved-medium' }, { name: 'en_US-cancel-medium' }], scratch)
const server = await serveMirror(mirror.dir)
t.teardown(() => server.close())
const modelPath = (name: string): string => mirror.files.get(name)?.modelPath as string
let dests = 0
const freshDest = (): string => join(scratch, `dest-${++dests}`)
const listing = async (dir: string): Promise<string[]> => (await readdir(dir).catch(() => [])).sort()

t.test('the settings: seconds, checked at start-up, named in their refusals', async t => {
  t.same(loadServiceConfig({}).voiceDownload, { deadlineMs: 900_000, stallMs: 30_000 }, 'the defaults: 15 minutes, 30 s')
  t.same(loadServiceConfig({ TTS_VOICE_DOWNLOAD_TIMEOUT_SECONDS: '2.5', TTS_VOICE_DOWNLOAD_STALL_SECONDS: '0.5' }).voiceDownload, { deadlineMs: 2500, stallMs: 500 })
  for (const [name, value] of [['TTS_VOICE_DOWNLOAD_TIMEOUT_SECONDS', '0'], ['TTS_VOICE_DOWNLOAD_TIMEOUT_SECONDS', 'soon'], ['TTS_VOICE_DOWNLOAD_STALL_SECONDS', '-1']] as const) {
    t.throws(() => loadServiceConfig({ [name]: value }), ConfigError, `${name}=${value}`)
    t.throws(() => loadServiceConfig({ [name]: value }), { message: new RegExp(`^Expected a number from 0.1 to \\d+ for ${name} but received "${value}"`) })
  }
})

t.test('a source that trickles: stopped at the deadline, nothing left behind', async t => {
  server.misbehave(modelPath('en_US-trickle-medium'), 'trickle')
  const dest = freshDest()
  const error = await fetchVoices(['en_US-trickle-medium'], { destDir: dest, baseUrl: server.baseUrl, catalog: mirror.catalogPath, timeoutMs: 60_000, deadlineMs: 500 }).catch((e: unknown) => e)
  t.match(error, { name: 'VoiceDownloadError', code: 'ERR_VOICE_DOWNLOAD', status: 504, message: 'The download did not finish within its deadline of 0.5 s' })
  t.same(await listing(dest), [], 'no partial or temporary file')
})

t.test('a source that sends nothing more: stopped at the stall timeout', async t => {
  server.misbehave(modelPath('en_US-stalled-medium'), 'stall')
  const dest = freshDest()
  const error = await fetchVoices(['en_US-stalled-medium'], { destDir: dest, baseUrl: server.baseUrl, catalog: mirror.catalogPath, timeoutMs: 200, deadlineMs: 600_000 }).catch((e: unknown) => e)
  // Before the headers (a busy machine) or after the first bytes: either wait is the stall timeout's.
  t.match(error, { code: 'ERR_VOICE_DOWNLOAD', message: /(stalled: no data for 200 ms|timed out: no response within 200 ms)$/ })
  t.same(await listing(dest), [])
})

t.test('through the admin API: the deadline answers the install, DELETE cancels one, the next request is answered', async t => {
  const TOKEN = 'admin-token-for-tests-0123456789'
  const service = await startTestService({ TTS_ADMIN_TOKEN: TOKEN, TTS_VOICE_SOURCE: server.baseUrl, TTS_VOICE_CATALOG: mirror.catalogPath, TTS_VOICE_DOWNLOAD_TIMEOUT_SECONDS: '0.5', TTS_VOICE_DOWNLOAD_STALL_SECONDS: '60' }, ['en_US-probe-medium'])
  t.teardown(() => service.stop())
  const call = async (method: string, path: string): ReturnType<typeof request> => await request(service.url + path, { method, headers: { Authorization: `Bearer ${TOKEN}` } })
  server.misbehave(modelPath('en_US-trickle-medium'), 'trickle')
  const answered = await call('POST', '/admin/voices/en_US-trickle-medium')
  t.equal(answered.status, 504, 'the trickling install ends at its deadline')
  t.match(answered.json, { code: 'ERR_VOICE_DOWNLOAD', error: 'The download did not finish within its deadline of 0.5 s' })
  t.same((await call('GET', '/voices')).json.installing, [])

  // A long deadline now, so the install is still running when it is removed.
  const patient = await startTestService({ TTS_ADMIN_TOKEN: TOKEN, TTS_VOICE_SOURCE: server.baseUrl, TTS_VOICE_CATALOG: mirror.catalogPath }, ['en_US-probe-medium'])
  t.teardown(() => patient.stop())
  const patientCall = async (method: string, path: string): ReturnType<typeof request> => await request(patient.url + path, { method, headers: { Authorization: `Bearer ${TOKEN}` } })
  server.misbehave(modelPath('en_US-cancel-medium'), 'trickle')
  const first = patientCall('POST', '/admin/voices/en_US-cancel-medium')
  await eventually('the install to be under way', async () => ((await patientCall('GET', '/voices')).json.installing[0]?.bytes_done ?? 0) > 0)
  const removal = await patientCall('DELETE', '/admin/voices/en_US-cancel-medium')
  t.equal(removal.status, 204, 'DELETE of a voice being installed cancels the install')
  const cancelled = await first
  t.equal(cancelled.status, 409)
  t.same(cancelled.json, { error: 'The install of voice "en_US-cancel-medium" was cancelled: the voice was removed while it was being installed', code: 'ERR_VOICE_INSTALL_CANCELLED', voice: 'en_US-cancel-medium' })
  t.same((await patientCall('GET', '/voices')).json.installing, [])
  t.same(await listing(patient.voiceDir), ['en_US-probe-medium.onnx', 'en_US-probe-medium.onnx.json'], 'no temporary file left')
  server.misbehave(modelPath('en_US-cancel-medium'), undefined)
  const again = await patientCall('POST', '/admin/voices/en_US-cancel-medium')
  t.equal(again.status, 201, 'the next install is answered, and installs')
  t.equal((await patientCall('DELETE', '/admin/voices/en_US-cancel-medium')).status, 204)
  t.equal((await patientCall('DELETE', '/admin/voices/en_US-cancel-medium')).status, 404, 'nothing to cancel or remove: 404 as before')
})

t.test('internal addresses: loopback, private, link-local, shared, unspecified, mapped', async t => {
  for (const address of ['127.0.0.1', '127.8.9.10', '10.1.2.3', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', '::', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', '[::1]']) {
    t.ok(isInternalAddress(address), address)
  }
  for (const address of ['8.8.8.8', '172.32.0.1', '203.0.113.7', '2001:4860:4860::8888', '::ffff:8.8.8.8', 'example.com']) t.notOk(isInternalAddress(address), address)
})

t.test('redirects: to an internal address refused from a public source, followed to a public one, and from an internal source', async t => {
  // This machine has no public address: the test's resolver says "localhost" is one, for the redirect check only.
  const lookup = async (host: string): Promise<string[]> => host === 'localhost' ? ['203.0.113.7'] : ['127.0.0.1']
  const publicSource = (await serveMirror(mirror.dir, 'localhost'))
  t.teardown(() => publicSource.close())
  const port = new URL(publicSource.baseUrl).port
  const moved = modelPath('en_US-moved-medium')
  const fetchMoved = async (baseUrl: string): Promise<unknown> => await fetchVoices(['en_US-moved-medium'], { destDir: freshDest(), baseUrl, catalog: mirror.catalogPath, timeoutMs: 60_000, lookup }).catch((e: unknown) => e)

  publicSource.misbehave(moved, { redirect: `http://127.0.0.1:${port}${PREFIX}${moved}` })
  const refused = await fetchMoved(publicSource.baseUrl)
  t.match(refused, { code: 'ERR_VOICE_DOWNLOAD', message: new RegExp(`redirected to http://127\\.0\\.0\\.1:${port}, which is not followed: its host 127\\.0\\.0\\.1 is on an internal address \\(127\\.0\\.0\\.1: loopback, private or link-local\\), and the configured source is not$`) })
  t.equal(publicSource.requests.filter(path => path === moved).length, 1, 'the internal address was never asked')

  publicSource.misbehave(moved, { redirect: `http://169.254.169.254${PREFIX}${moved}` })
  t.match(await fetchMoved(publicSource.baseUrl), { message: /its host 169\.254\.169\.254 is on an internal address/ }, 'nor a cloud\'s metadata address')

  publicSource.misbehave(moved, { redirect: `http://localhost:${port}${PREFIX}${moved}` })
  t.match(await fetchMoved(publicSource.baseUrl), [{ name: 'en_US-moved-medium', status: 'installed' }], 'a redirect to a public host is followed')

  server.misbehave(moved, { redirect: `http://127.0.0.1:${new URL(server.baseUrl).port}${PREFIX}${moved}` })
  t.match(await fetchMoved(server.baseUrl), [{ name: 'en_US-moved-medium', status: 'installed' }], 'from a source on 127.0.0.1 itself, its redirects are trusted')
})
