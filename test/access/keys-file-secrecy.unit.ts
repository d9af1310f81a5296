// Issue 42's finding 2: no key material in any message. A keys file that is
// not JSON is reported by where it stops being JSON (line and column), never
// by its text: at start-up (exit 2) and in the reload's log line; and no
// value that could be a key is quoted when the file is JSON of the wrong shape.

import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { promisify } from 'node:util'
import t from 'tap'
import { KeyStore } from '../../src/access/key-store.js'
import { parseKeysFile } from '../../src/access/keys-file.js'
import { createLogger } from '../../src/shared/logger.js'
import { CHILD_HANG_GUARD_MS } from '../helpers/hang-guard.js'
import { chorusCommand } from '../helpers/chorus-command.js'

const KEY = 'k7Qm2xv9LrT4pW8sYb3n'
/** Any run of a key's characters this long would be an excerpt of it. */
const excerpts = (key: string): string[] => Array.from({ length: key.length - 5 }, (_, i) => key.slice(i, i + 6))
const leaks = (message: string, key = KEY): string[] => excerpts(key).filter(piece => message.includes(piece))

const dir = await mkdtemp(join(tmpdir(), 'chorus-keys-secrecy-'))
t.teardown(() => rm(dir, { recursive: true, force: true }))
const file = join(dir, 'k.keys')

const messageOf = (text: string): string => {
  try {
    parseKeysFile(text, file)
  } catch (error) {
    return (error as Error).message
  }
  throw new Error('parsed')
}

t.test('not JSON: where it stops, never what it says', async t => {
  const cases: Array<[string, string]> = [
    [`${KEY}\n`, 'line 1, column 1 (expected a value)'],
    [`{"keys": {"${KEY}": {"name": "bot-a"},}}`, 'line 1, column 53 (expected a property name in double quotes)'],
    [`{\n  "keys": {\n    "${KEY}" {"name": "bot-a"}\n  }\n}`, "line 3, column 28 (expected ':')"],
    [`{"keys": {"${KEY}`, 'line 1, column 32 (expected a well-formed string)']
  ]
  for (const [text, where] of cases) {
    const message = messageOf(text)
    t.equal(message, `Expected JSON in TTS_API_KEYS_FILE (${file}) but it does not parse at ${where} (the text is not shown: it holds keys)`)
    t.same(leaks(message), [], 'no piece of the key')
  }
})

t.test('JSON of the wrong shape: no value that could be a key is quoted', async t => {
  const documents = [
    [KEY],
    KEY,
    { [KEY]: { name: 'bot-a' } },
    { keys: [KEY] },
    { keys: { 'bot-a': KEY } },
    { keys: { [KEY]: { name: 'bot-a', role: KEY } } },
    { keys: { [KEY]: { name: 'bot-a', quotas: { [KEY]: 1 } } } },
    { keys: { [KEY]: { name: 'bot-a', [KEY]: true } } }
  ]
  for (const document of documents) {
    const message = messageOf(JSON.stringify(document))
    t.match(message, /^Expected .* in TTS_API_KEYS_FILE .* but received /, JSON.stringify(document).replaceAll(KEY, '<key>'))
    t.same(leaks(message), [], message)
  }
  t.match(messageOf(JSON.stringify({ keys: { [KEY]: { name: 'bot-a', role: 'root' } } })), /but received "root" \(string\)$/, 'a value shorter than any key is still shown')
})

t.test('at start-up: exit 2 with where, never what', async t => {
  await writeFile(file, `${KEY}\n`)
  const failed = await promisify(execFile)(...chorusCommand(['serve']), {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TTS_API_KEYS_FILE: file, TTS_HTTP_PORT: '0' },
    timeout: CHILD_HANG_GUARD_MS
  }).then(() => undefined, (error: unknown) => error as { code: number, stdout: string, stderr: string })
  t.equal(failed?.code, 2)
  t.match(failed?.stderr, /does not parse at line 1, column 1 \(expected a value\)/)
  t.same(leaks(`${failed?.stdout ?? ''}${failed?.stderr ?? ''}`), [], 'nothing of the key on stdout or stderr')
})

t.test('on a reload: the log line says where, never what', async t => {
  const lines: string[] = []
  const log = createLogger('chorus-tts', 'debug', new Writable({ write (chunk, _encoding, done) { lines.push(String(chunk)); done() } }))
  const good = JSON.stringify({ keys: { [KEY]: { name: 'bot-a' } } })
  await writeFile(file, good)
  const store = new KeyStore(file, parseKeysFile(good, file), log)
  t.equal(await store.reload(), false, 'the first look records the file')
  const next = 'Zp5Hc1uE6gN0aJ3kVw7d'
  await writeFile(file, `${next}\n${KEY}\n`)
  t.equal(await store.reload(), false, 'a bad edit keeps the previous keys')
  const warning = lines.map(line => JSON.parse(line) as Record<string, unknown>).find(line => line.msg === 'API keys file not reloaded: keeping the previous keys')
  t.match(warning, { reason: /does not parse at line 1, column 1 \(expected a value\)/ })
  t.same([...leaks(lines.join('')), ...leaks(lines.join(''), next)], [], 'no piece of either key in the log')
  t.ok(store.find(KEY) !== undefined, 'the previous key still works')
})
