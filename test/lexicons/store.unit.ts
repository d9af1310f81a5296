// The lexicon store on disk, without a service: versions survive a restart,
// a lexicon whose files are damaged is left out (and logged), and a store
// that was never written to leaves the folder untouched.

import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import t from 'tap'
import { LexiconStore } from '../../src/lexicons/store.js'
import { createLogger } from '../../src/shared/logger.js'

const dir = await mkdtemp(join(tmpdir(), 'chorus-lexicon-store-'))
t.teardown(async () => await rm(dir, { recursive: true, force: true }))
const lines: Array<Record<string, unknown>> = []
const log = createLogger('test', 'warn', new Writable({ write (chunk, _encoding, done) { lines.push(JSON.parse(String(chunk))); done() } }))
const accept = (): void => {}

t.test('a store never written to leaves its folder alone', async t => {
  const store = new LexiconStore(join(dir, 'lexicons'), undefined, log)
  await store.load()
  t.same(store.list(), [])
  t.notOk(existsSync(join(dir, 'lexicons')), 'no folder made before the first upload')
  t.equal(store.matcher({ voice: 'v', language: 'en-us', named: [] }), undefined, 'no lexicon: no matcher')
})

t.test('versions survive a restart; a damaged lexicon is left out and logged', async t => {
  const first = new LexiconStore(join(dir, 'lexicons'), undefined, log)
  await first.load()
  await first.install('names', JSON.stringify({ Xyrith: '/zˈɪɹɪθ/' }), 'json', { kind: 'global' }, accept)
  await first.install('names', JSON.stringify({ Xyrith: '/zaɪɹˈɪθ/' }), 'json', undefined, accept)
  await first.install('broken', JSON.stringify({ word: 'w' }), 'json', undefined, accept)
  await writeFile(join(dir, 'lexicons', 'broken', 'v1.json'), '{ not json')

  const second = new LexiconStore(join(dir, 'lexicons'), undefined, log)
  await second.load()
  t.same(second.list().map(l => [l.id, l.scope, l.versions.map(v => v.id)]), [['names', { kind: 'global' }, ['v1', 'v2']]], 'the scope kept from the first upload')
  t.ok(lines.some(l => l.id === 'broken' && l.msg === 'an installed lexicon cannot be read; it is left out'), 'the damaged one is logged')
  const matcher = second.matcher({ voice: 'v', language: 'de', named: [] })
  t.same(matcher?.find('Xyrith').map(m => m.entry.ipa), ['zaɪɹˈɪθ'], 'the latest version applies (a JSON map to every language)')
  const older = second.matcher({ voice: 'v', language: 'de', named: [{ id: 'names', version: 'v1' }] })
  t.same(older?.find('Xyrith').map(m => m.entry.ipa), ['zˈɪɹɪθ'], 'a named version comes first')
  t.throws(() => second.matcher({ voice: 'v', language: 'de', named: [{ id: 'names', version: 'v9' }] }), { code: 'ERR_LEXICON_NOT_FOUND', message: 'Expected an installed lexicon for lexicons[0] but received "names" version "v9"' })
})
