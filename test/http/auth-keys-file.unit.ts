// The keys file's schema: what it accepts, defaults, and errors that name
// the variable and the entry (never the key) at start-up (exit 2).

import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { ConfigError } from '../../src/errors.js'
import { MAX_KEYS, parseKeysFile } from '../../src/access/keys-file.js'
import { loadServiceConfig } from '../../src/service/config.js'

const KEY = 'sk-test-0123456789abcdef'
const OTHER = 'sk-other-0123456789abcdef'
const parse = (document: unknown): ReturnType<typeof parseKeysFile> => parseKeysFile(JSON.stringify(document), '/etc/chorus/keys.json')

t.test('a full entry and the defaults', async t => {
  const keys = parse({
    keys: {
      [KEY]: { name: 'bot-a', role: 'admin', weight: 2.5, quotas: { requests_per_minute: 60, audio_seconds_per_minute: 90.5, concurrent_streams: 2 } },
      [OTHER]: { name: 'bot-b' }
    }
  })
  t.same(keys, [
    { key: KEY, name: 'bot-a', role: 'admin', weight: 2.5, quotas: { requestsPerMinute: 60, audioSecondsPerMinute: 90.5, concurrentStreams: 2 } },
    { key: OTHER, name: 'bot-b', role: 'user', weight: 1, quotas: {} }
  ])
  t.same(parse({ keys: {} }), [], 'an empty file: no key is valid')
})

t.test('each mistake is named by its entry and field, in the one format', async t => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['not JSON', undefined, /^Expected JSON in TTS_API_KEYS_FILE \(\/etc\/chorus\/keys.json\) but it does not parse/],
    ['not an object', [], /^Expected an object \{"keys": \{…\}\} for the file in TTS_API_KEYS_FILE .* but received a value not shown \(an array of 0 items\)$/],
    ['an unknown top field', { keys: {}, key: {} }, /^Expected only the field "keys" for the file .* but received "key" \(string\)$/],
    ['keys not an object', { keys: [] }, /^Expected an object of key → .* for "keys" in TTS_API_KEYS_FILE/],
    ['a bad role', { keys: { [KEY]: { name: 'bot-a', role: 'root' } } }, /^Expected "user" or "admin" for entry 1 \(bot-a\)\.role in TTS_API_KEYS_FILE \(\/etc\/chorus\/keys.json\) but received "root" \(string\)$/],
    ['a missing name', { keys: { [KEY]: { role: 'user' } } }, /^Expected a name of letters, digits.* for entry 1\.name in .* but received undefined \(undefined\)$/],
    ['a reserved name', { keys: { [KEY]: { name: 'anonymous' } } }, /^Expected a name other than "anonymous".* for entry 1 \(anonymous\)\.name/],
    ['a name twice', { keys: { [KEY]: { name: 'bot-a' }, [OTHER]: { name: 'bot-a' } } }, /^Expected a name no other key has for entry 2 \(bot-a\)\.name/],
    ['a zero weight', { keys: { [KEY]: { name: 'bot-a', weight: 0 } } }, /^Expected a number above 0 and at most 1000 for entry 1 \(bot-a\)\.weight .* but received 0 \(number\)$/],
    ['a fractional request quota', { keys: { [KEY]: { name: 'bot-a', quotas: { requests_per_minute: 1.5 } } } }, /^Expected an integer from 1 to 1000000 for entry 1 \(bot-a\)\.quotas\.requests_per_minute .* but received 1\.5 \(number\)$/],
    ['an unknown quota', { keys: { [KEY]: { name: 'bot-a', quotas: { tokens: 1 } } } }, /^Expected only the fields requests_per_minute, audio_seconds_per_minute, concurrent_streams for entry 1 \(bot-a\)\.quotas/],
    ['an unknown field', { keys: { [KEY]: { name: 'bot-a', admin: true } } }, /^Expected only the fields name, role, weight and quotas for entry 1 \(bot-a\) .* but received "admin"/]
  ]
  for (const [name, document, message] of cases) {
    const text = document === undefined ? '{"keys": ' : JSON.stringify(document)
    t.throws(() => parseKeysFile(text, '/etc/chorus/keys.json'), message, name)
    try {
      parseKeysFile(text, '/etc/chorus/keys.json')
    } catch (error) {
      t.type(error, ConfigError, `${name}: a ConfigError (exit 2)`)
      t.notMatch((error as Error).message, KEY, `${name}: the key is not in the message`)
    }
  }
})

t.test('a malformed key is refused without being echoed', async t => {
  for (const key of ['short-key', 'a key with spaces in it', 'ключ-ключ-ключ-ключ-ключ']) {
    const attempt = (): unknown => parse({ keys: { [key]: { name: 'bot-a' } } })
    t.throws(attempt, /^Expected a key of 16 to 256 characters from .* for entry 1 \(bot-a\) in TTS_API_KEYS_FILE .* but received one of \d+ characters that is not$/)
    try {
      attempt()
    } catch (error) {
      t.notOk((error as Error).message.includes(key), 'the key is not shown')
    }
  }
})

t.test('at most MAX_KEYS keys', async t => {
  const keys = Object.fromEntries(Array.from({ length: MAX_KEYS + 1 }, (_, i) => [`sk-${String(i).padStart(16, '0')}`, { name: `bot-${i}` }]))
  t.throws(() => parse({ keys }), /^Expected at most 1000 keys for "keys"/)
})

t.test('TTS_API_KEYS_FILE at start-up: read and checked, or a ConfigError naming the variable', async t => {
  const dir = await mkdtemp(join(tmpdir(), 'chorus-keys-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'keys.json')
  await writeFile(file, JSON.stringify({ keys: { [KEY]: { name: 'bot-a' } } }))
  const config = loadServiceConfig({ TTS_API_KEYS_FILE: file, TTS_METRICS_PUBLIC: '1', TTS_API_KEYS_RELOAD_SECONDS: '0.5' })
  t.same(config.apiKeys?.keys.map(key => key.name), ['bot-a'])
  t.equal(config.metricsPublic, true)
  t.equal(config.apiKeysReloadMs, 500)
  const none = loadServiceConfig({})
  t.equal(none.apiKeys, undefined, 'no file: no keys')
  t.equal(none.metricsPublic, false)
  t.throws(() => loadServiceConfig({ TTS_API_KEYS_FILE: join(dir, 'missing.json') }), { name: 'ConfigError', message: /^Expected a readable file for TTS_API_KEYS_FILE but received ".*missing\.json" \(ENOENT\)$/ })
  await writeFile(file, JSON.stringify({ keys: { [KEY]: { name: 'bot a' } } }))
  t.throws(() => loadServiceConfig({ TTS_API_KEYS_FILE: file }), { name: 'ConfigError', message: /for entry 1\.name in TTS_API_KEYS_FILE/ })
  t.throws(() => loadServiceConfig({ TTS_METRICS_PUBLIC: 'yes' }), /^Expected one of 0, 1 for TTS_METRICS_PUBLIC but received "yes"/)
})
