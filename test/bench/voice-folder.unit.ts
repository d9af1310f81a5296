// --voices must name a folder that exists: a missing one is exit code 2 with
// the flag and the path, before anything starts (the service it would start
// creates a missing voice folder and serves only the built-in voice, so a
// mistyped folder used to end in "Voice … is not served by the service").

import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { runBenchCommand } from '../../bench/cli.js'
import { captureIo } from './helpers.js'

const root = await mkdtemp(join(tmpdir(), 'chorus-bench-folder-'))
t.teardown(() => rm(root, { recursive: true, force: true }))

t.test('a --voices folder that does not exist: exit 2, naming the flag and the path, for every command that takes one', async t => {
  const missing = join(root, 'no-such-folder')
  const out = join(root, 'out')
  for (const command of [[], ['targets'], ['fleet']]) {
    const io = captureIo()
    const code = await runBenchCommand([...command, '--voices', missing, '--voice', 'en_US-a-medium', '--out', out], io)
    const name = ['bench', ...command].join(' ')
    t.equal(code, 2, name)
    t.equal(io.err(), `chorus bench: Expected a folder of Piper voices (${missing} does not exist) for --voices but received ${JSON.stringify(missing)} (string)\n`, name)
    t.notOk(existsSync(missing), `${name} does not create the folder`)
    t.notOk(existsSync(out), `${name} starts nothing and writes nothing`)
  }
})

t.test('a --voices path that is a file, not a folder', async t => {
  const file = join(root, 'a-file')
  await writeFile(file, '')
  const io = captureIo()
  t.equal(await runBenchCommand(['--voices', file, '--voice', 'en_US-a-medium'], io), 2)
  t.match(io.err(), `Expected a folder of Piper voices (${file} is not a folder) for --voices`)
})
