// One log-level variable for every server: CHORUS_LOG_LEVEL, as for the tool
// server and the spawner. The service's old TTS_LOG_LEVEL still works and
// loses to CHORUS_LOG_LEVEL when both are set.

import { spawn } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import t from 'tap'
import { loadServiceConfig } from '../../src/service/config.js'
import { CHILD_HANG_GUARD_MS } from '../helpers/hang-guard.js'
import { chorusCommand } from '../helpers/chorus-command.js'


t.test('the level comes from CHORUS_LOG_LEVEL, else TTS_LOG_LEVEL, else info', async t => {
  const level = (env: Record<string, string>) => loadServiceConfig({ TTS_VOICE_MEMORY_BYTES: '1000000', ...env }).logLevel
  t.equal(level({}), 'info')
  t.equal(level({ CHORUS_LOG_LEVEL: 'debug' }), 'debug')
  t.equal(level({ TTS_LOG_LEVEL: 'warn' }), 'warn', 'the deprecated name still works')
  t.equal(level({ CHORUS_LOG_LEVEL: 'error', TTS_LOG_LEVEL: 'trace' }), 'error', 'CHORUS_LOG_LEVEL wins')
  t.equal(level({ CHORUS_LOG_LEVEL: ' ', TTS_LOG_LEVEL: 'warn' }), 'warn', 'a blank CHORUS_LOG_LEVEL is unset')
  t.equal(level({ CHORUS_LOG_LEVEL: ' warn\n' }), 'warn', 'trimmed, like every setting of the shared reader')
})

t.test('a bad level names the variable it came from', async t => {
  const level = (env: Record<string, string>) => loadServiceConfig({ TTS_VOICE_MEMORY_BYTES: '1000000', ...env }).logLevel
  t.throws(() => level({ CHORUS_LOG_LEVEL: 'loud', TTS_LOG_LEVEL: 'info' }),
    { code: 'ERR_CONFIG', message: 'Expected one of fatal, error, warn, info, debug, trace, silent for CHORUS_LOG_LEVEL but received "loud" (string)' })
  t.throws(() => level({ TTS_LOG_LEVEL: 'loud' }),
    { code: 'ERR_CONFIG', message: 'Expected one of fatal, error, warn, info, debug, trace, silent for TTS_LOG_LEVEL but received "loud" (string)' })
})

const voiceDir = await mkdtemp(join(tmpdir(), 'chorus-log-level-'))
t.teardown(() => rm(voiceDir, { recursive: true, force: true }))

/** `chorus serve` as a user runs it, until it logs that it listens or
 * exits; CHILD_HANG_GUARD_MS only ends a hang (then: false). */
async function serveLogsListening (env: Record<string, string>): Promise<boolean> {
  const child = spawn(...chorusCommand(['serve']), {
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      TTS_HTTP_HOST: '127.0.0.1',
      TTS_HTTP_PORT: '0',
      TTS_VOICE_DIR: voiceDir,
      CHORUS_INSTALL_BUNDLED: '0',
      ...env
    },
    stdio: ['ignore', 'pipe', 'inherit']
  })
  const exited = new Promise<boolean>(resolve => child.once('exit', () => resolve(false)))
  const listening = new Promise<boolean>(resolve => {
    createInterface({ input: child.stdout }).on('line', line => {
      if (line.includes('"msg":"listening"')) resolve(true)
    })
  })
  const silent = new Promise<boolean>(resolve => setTimeout(() => resolve(false), CHILD_HANG_GUARD_MS).unref())
  const logged = await Promise.race([listening, exited, silent])
  child.kill('SIGTERM')
  await exited
  return logged
}

t.test('chorus serve logs at the level CHORUS_LOG_LEVEL gives, over TTS_LOG_LEVEL', async t => {
  t.equal(await serveLogsListening({ CHORUS_LOG_LEVEL: 'info', TTS_LOG_LEVEL: 'silent' }), true, 'info lines with CHORUS_LOG_LEVEL=info although TTS_LOG_LEVEL=silent')
})
