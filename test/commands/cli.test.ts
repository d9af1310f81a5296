// The `chorus` command as a user runs it: a child process wherever the
// point is the process (exit codes and streams of each error path, the
// installed command, signals, its cwd and environment); the messages of
// parsing and validation in this process, through the function the bin
// calls (src/cli.ts main), once a spawned case has shown that path prints
// the same from the process. A spawn costs about half a CPU-second, a
// `chorus bench` one from the sources about four.

import { execFile } from 'node:child_process'
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { main } from '../../src/cli.js'
import { parseWav } from '../../src/engine/index.js'
import { PACKAGE_ROOT } from '../../src/package-root.js'
import { testVoiceDir } from '../helpers/voices.js'
import { chorusCommand } from '../helpers/chorus-command.js'
import { CHILD_HANG_GUARD_MS, eventually } from '../helpers/hang-guard.js'

interface Outcome { code: number, stdout: string, stderr: string }

/** The environment a user's shell would give: PATH and HOME, then `env`. */
const userEnv = (env: Record<string, string>): Record<string, string> => ({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env })

const run = promisify(execFile)
/** `chorus ...args` as a child process. */
async function chorus (args: string[], env: Record<string, string> = {}, cwd?: string): Promise<Outcome> {
  try {
    const { stdout, stderr } = await run(...chorusCommand(args), { env: userEnv(env), timeout: CHILD_HANG_GUARD_MS, cwd })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code: number, stdout: string, stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

/** `chorus ...args` in this process: main() with the child's environment
 * (and the variable the bin sets before ONNX Runtime loads), its stdout and
 * stderr captured; the exit code the bin would set. */
async function chorusHere (args: string[], env: Record<string, string> = {}): Promise<Outcome> {
  const saved = { ...process.env }
  const replaceEnv = (values: Record<string, string | undefined>): void => {
    for (const key of Object.keys(process.env)) delete process.env[key]
    Object.assign(process.env, values)
  }
  replaceEnv(userEnv({ ORT_DISABLE_TELEMETRY: '1', ...env }))
  const captured = { stdout: '', stderr: '' }
  const writers = { stdout: process.stdout.write, stderr: process.stderr.write }
  for (const name of ['stdout', 'stderr'] as const) {
    process[name].write = ((chunk: string | Uint8Array, ...rest: unknown[]): boolean => {
      captured[name] += String(chunk)
      const done = rest.find(arg => typeof arg === 'function') as (() => void) | undefined
      done?.()
      return true
    }) as typeof process.stdout.write
  }
  let guard: NodeJS.Timeout | undefined
  try {
    // A command that started a server instead of returning never ends: fail, as the child's timeout would.
    const hang = new Promise<never>((_resolve, reject) => {
      guard = setTimeout(() => reject(new Error(`chorus ${args.join(' ')} did not return`)), CHILD_HANG_GUARD_MS)
    })
    const code = await Promise.race([main(args), hang])
    return { code: code ?? 0, ...captured }
  } finally {
    clearTimeout(guard)
    process.stdout.write = writers.stdout
    process.stderr.write = writers.stderr
    replaceEnv(saved)
  }
}

const out = await mkdtemp(join(tmpdir(), 'chorus-cli-'))
t.teardown(() => rm(out, { recursive: true, force: true }))

// One spawned say with a Piper voice serves two points: the WAV it writes,
// and what ONNX Runtime leaves (nothing) under an empty HOME.
let piperSay: Promise<{ result: Outcome, file: string, home: string }> | undefined
async function sayWithPiperVoice (): Promise<{ result: Outcome, file: string, home: string }> {
  piperSay ??= (async () => {
    const home = join(out, 'home')
    await mkdir(home)
    const file = join(out, 'probe.wav')
    const result = await chorus(['say', 'Hello there. Second sentence.', '--voice', 'en_GB-probemulti-medium', '--speaker', '3', '-o', file], { HOME: home, TTS_VOICE_DIR: await testVoiceDir() })
    return { result, file, home }
  })()
  return await piperSay
}

t.test('chorus say writes a WAV with a Piper voice', async t => {
  const { result, file } = await sayWithPiperVoice()
  t.equal(result.code, 0, result.stderr)
  const wav = parseWav(await readFile(file))
  t.equal(wav.sampleRate, 22050)
  t.ok(wav.dataBytes > 0)
})

t.test('chorus say speaks with the built-in voice without any files', async t => {
  const file = join(out, 'builtin.wav')
  const result = await chorus(['say', 'Hello from Chorus.', '--voice', 'en_US-espeak-low', '-o', file], { TTS_VOICE_DIR: join(out, 'no-voices-here') })
  t.equal(result.code, 0, result.stderr)
  t.ok(parseWav(await readFile(file)).duration > 0.5)
})

t.test('bad configuration exits 2 naming the variable', async t => {
  // The process: exit code and the whole of stderr, for one of them.
  const spawned = await chorus(['serve'], { TTS_DEFAULT_VOICE: '../x' })
  t.equal(spawned.code, 2)
  t.match(spawned.stderr, /^chorus serve: Expected a voice name like en_US-lessac-medium for TTS_DEFAULT_VOICE but received "\.\.\/x" \(string\)\n$/)
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ TTS_HTTP_PORT: 'eighty' }, /Expected an integer from 0 to 65535 for TTS_HTTP_PORT but received "eighty" \(string\)/],
    [{ TTS_HTTP_PORT: '70000' }, /TTS_HTTP_PORT but received "70000"/],
    [{ TTS_TIMEOUT_SECONDS: '0' }, /Expected a number from 0.1 to 3600 for TTS_TIMEOUT_SECONDS but received "0"/],
    [{ TTS_WORKERS_PER_VOICE: '-1' }, /TTS_WORKERS_PER_VOICE/],
    [{ TTS_LOG_LEVEL: 'loud' }, /Expected one of fatal, error, warn, info, debug, trace, silent for TTS_LOG_LEVEL but received "loud"/],
    [{ TTS_DEFAULT_VOICE: '../x' }, /^chorus serve: Expected a voice name like en_US-lessac-medium for TTS_DEFAULT_VOICE but received "\.\.\/x" \(string\)\n$/]
  ]
  for (const [env, message] of cases) {
    const result = await chorusHere(['serve'], env)
    t.equal(result.code, 2, JSON.stringify(env))
    t.match(result.stderr, message)
  }
})

t.test('usage errors exit 2', async t => {
  const unknown = await chorus(['sing'])
  t.equal(unknown.code, 2)
  t.match(unknown.stderr, /unknown command "sing"/)
  const noOutput = await chorusHere(['say', 'hi'])
  t.equal(noOutput.code, 2)
  t.match(noOutput.stderr, /Expected an output file for -o\/--output/)
  const unknownFlag = await chorusHere(['say', 'hi', '--loud'])
  t.equal(unknownFlag.code, 2)
  t.match(unknownFlag.stderr, /--loud/)
  const badFlag = await chorusHere(['say', 'hi', '--length-scale', 'slow', '-o', join(out, 'x.wav')])
  t.equal(badFlag.code, 2)
  t.match(badFlag.stderr, /Expected a number from 0\.1 to 5 for --length-scale but received "slow"/)
  // A failure the user can act on (exit 1), from the process.
  const missingVoice = await chorus(['say', 'hi', '--voice', 'en_US-nobody-medium', '-o', join(out, 'x.wav')], { TTS_VOICE_DIR: out })
  t.equal(missingVoice.code, 1)
  t.match(missingVoice.stderr, /Voice model not found: en_US-nobody-medium/)
})

// A line that works with `chorus say` works over HTTP, and the other way round.
t.test('chorus say picks and checks the voice as the service does', async t => {
  const empty = join(out, 'empty-voices')
  await mkdir(empty)
  const file = join(out, 'default.wav')
  const fallback = await chorus(['say', 'No voice named.', '-o', file], { TTS_VOICE_DIR: empty })
  t.equal(fallback.code, 0, 'without --voice and without the default voice installed: the built-in voice')
  t.ok(parseWav(await readFile(file)).duration > 0.3)

  const explicit = await chorusHere(['say', 'hi', '-o', file], { TTS_VOICE_DIR: empty, TTS_DEFAULT_VOICE: 'en_US-lessac-medium' })
  t.equal(explicit.code, 1, 'an explicitly configured default that is missing is an error, as over HTTP')
  t.match(explicit.stderr, /Voice model not found: en_US-lessac-medium/)

  // The process: a usage error's exit code and the whole of stderr.
  const slow = await chorus(['say', 'hi', '--voice', 'en_US-espeak-low', '--length-scale', '9', '-o', file])
  t.equal(slow.code, 2)
  t.match(slow.stderr, /^chorus say: Expected a number from 0\.1 to 5 for --length-scale but received "9" \(string\)\n$/, 'the flag is named, not the HTTP field')
  const noisy = await chorusHere(['say', 'hi', '--voice', 'en_US-espeak-low', '--noise-scale', '2.5', '-o', file])
  t.equal(noisy.code, 2)
  t.match(noisy.stderr, /Expected a number from 0 to 2 for --noise-scale but received "2\.5" \(string\)/)
  const speaker = await chorusHere(['say', 'hi', '--voice', 'en_US-espeak-low', '--speaker', '2', '-o', file])
  t.equal(speaker.code, 2)
  t.match(speaker.stderr, /Expected 0 \(the built-in voice has one speaker\) for speaker but received 2 \(number\)/)
  const piperSpeaker = await chorusHere(['say', 'hi', '--voice', 'en_GB-probemulti-medium', '--speaker', '109', '-o', file], { TTS_VOICE_DIR: await testVoiceDir() })
  t.equal(piperSpeaker.code, 2)
  t.match(piperSpeaker.stderr, /Expected an integer from 0 to 108 or a speaker name for speaker but received 109 \(number\)/)
})

t.test('"Voice model not found" names the folder searched and what is there', async t => {
  const voices = await testVoiceDir()
  const result = await chorusHere(['say', 'hi', '--voice', 'en_US-bench-medium', '-o', join(out, 'x.wav')], { TTS_VOICE_DIR: voices })
  t.equal(result.code, 1)
  t.match(result.stderr, `Voice model not found: en_US-bench-medium in ${voices}; available: `)
  t.match(result.stderr, /available: .*en_GB-probemulti-medium, .*en_US-espeak-low/)
})

t.test('every command uses ./voices/local when TTS_VOICE_DIR is unset', async t => {
  const project = join(out, 'project')
  await mkdir(join(project, 'voices/local'), { recursive: true })
  for (const suffix of ['.onnx', '.onnx.json']) {
    await cp(join(await testVoiceDir(), `en_US-probe-medium${suffix}`), join(project, 'voices/local', `en_US-probe-medium${suffix}`))
  }
  const result = await chorus(['say', 'From the project folder.', '--voice', 'en_US-probe-medium', '-o', 'local.wav'], {}, project)
  t.equal(result.code, 0, result.stderr)
  t.ok(parseWav(await readFile(join(project, 'local.wav'))).dataBytes > 0)
})

t.test('an output path that cannot be written is a usage error naming -o, before any work', async t => {
  const missingDir = await chorusHere(['say', 'hi', '--voice', 'en_US-espeak-low', '-o', join(out, 'no-such-dir', 'x.wav')])
  t.equal(missingDir.code, 2)
  t.match(missingDir.stderr, /Expected a file path that can be written for -o\/--output but received ".*no-such-dir\/x\.wav" \(string\): ENOENT/)
  const directory = await chorusHere(['say', 'hi', '--voice', 'en_US-espeak-low', '-o', out])
  t.equal(directory.code, 2)
  t.match(directory.stderr, /for -o\/--output .*EISDIR/)
  t.notMatch(missingDir.stderr + directory.stderr, /\n\s+at /, 'no stack trace')
})

t.test('--help on every command prints its usage and exits 0 without starting anything', async t => {
  // A busy port would make a started server fail, so "exit 0" proves none started.
  const busyPorts = { TTS_HTTP_PORT: '1', TOOLS_HTTP_PORT: '1' }
  const spawned = await chorus(['serve', '--help'], busyPorts)
  t.equal(spawned.code, 0, 'the process: serve --help')
  t.match(spawned.stdout, /^usage: chorus serve\n/)
  const cases: Array<[string[], RegExp]> = [
    [['--help'], /^usage: chorus <command>/],
    [['serve', '--help'], /^usage: chorus serve\n/],
    [['say', '--help'], /^usage: chorus say TEXT/],
    [['voices', '--help'], /^usage: chorus voices \[list \| install-bundled \| install NAME\.\.\. \| remove NAME\.\.\.\]/],
    [['tools', '--help'], /^Usage: chorus tools/],
    [['spawner', '--help'], /^Usage: chorus spawner/],
    [['bench', '--help'], /^Usage: chorus bench/]
  ]
  for (const [args, usage] of cases) {
    const result = await chorusHere(args, busyPorts)
    t.equal(result.code, 0, args.join(' '))
    t.match(result.stdout, usage, args.join(' '))
  }
  const bad = await chorusHere(['voices', 'install-everything'])
  t.equal(bad.code, 2)
  t.match(bad.stderr, /Expected one of the subcommands list, install-bundled, install, remove for chorus voices but received "install-everything" \(string\)/)
})

t.test('chorus voices alone lists the folder\'s voices, the built-in one and those left out', async t => {
  const voices = await testVoiceDir()
  const result = await chorusHere(['voices'], { TTS_VOICE_DIR: voices })
  t.equal(result.code, 0, result.stderr)
  t.match(result.stdout, `Voices in ${voices}:`)
  t.match(result.stdout, /^ {2}en_GB-probemulti-medium {2}\(en_GB, 109 speakers, [\d.]+ MB\)$/m)
  t.match(result.stdout, /^Built in: en_US-espeak-low/m)
  const empty = join(out, 'no-voices')
  await mkdir(empty)
  await writeFile(join(empty, 'en_US-half-medium.onnx'), 'x')
  const none = await chorusHere(['voices', 'list'], { TTS_VOICE_DIR: empty })
  t.equal(none.code, 0, none.stderr)
  t.match(none.stdout, /none \(see docs\/voices\.md/)
  t.match(none.stdout, /Left out:\n {2}en_US-half-medium: /)
})

t.test('install-bundled says in a sentence when there is nothing to copy', async t => {
  // The process: what a container entrypoint sees on each stream.
  const result = await chorus(['voices', 'install-bundled'], { TTS_VOICE_DIR: join(out, 'bundled-target'), CHORUS_BUNDLED_VOICE_DIR: join(out, 'no-such-folder') })
  t.equal(result.code, 0, 'the container entrypoint runs it before every start, with or without bundled voices')
  t.match(result.stderr, /^warning: no bundled voices: .*no-such-folder does not exist$/m)
  t.match(result.stdout, /^No voice copied: /m)
  t.notMatch(result.stdout + result.stderr, /"level"/, 'no JSON log lines')
})

t.test('ONNX Runtime\'s telemetry is off: no device id or event store in the home folder', async t => {
  // The variable is set by the bin, before the library loads: only a process shows it.
  const { result, home } = await sayWithPiperVoice()
  t.equal(result.code, 0, result.stderr)
  t.same(await readdir(home), [], 'nothing written under HOME')
  t.notMatch(result.stderr, /telemetry/)
})

t.test('--version prints the package version', async t => {
  const { version } = JSON.parse(await readFile(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }
  const result = await chorusHere(['--version'])
  t.equal(result.code, 0)
  t.equal(result.stdout, `${version}\n`)
})

t.test('a busy port is a clear start-up error naming TTS_HTTP_PORT, not a stack trace', async t => {
  const blocker = createServer()
  await new Promise<void>(resolve => blocker.listen(0, '127.0.0.1', resolve))
  t.teardown(() => blocker.close())
  const { port } = blocker.address() as { port: number }
  const result = await chorus(['serve'], { TTS_HTTP_HOST: '127.0.0.1', TTS_HTTP_PORT: String(port), TTS_VOICE_DIR: join(out, 'empty-voices'), TTS_LOG_LEVEL: 'error' })
  t.equal(result.code, 2)
  t.match(result.stderr, `chorus serve: Cannot listen on 127.0.0.1:${port}: the port is in use by another process; stop it or set TTS_HTTP_PORT to a free port`)
  t.notMatch(result.stderr, /\n\s+at /, 'no stack trace')
})

t.test('a host that is no address exits 2 with one line naming the variable, for every server', async t => {
  // tools and spawner print their own configuration errors: each is shown once from a process.
  const cases: Array<[string[], Record<string, string>, string, typeof chorus]> = [
    [['serve'], { TTS_HTTP_HOST: '999.1.1.1', TTS_VOICE_DIR: join(out, 'empty-voices') }, 'TTS_HTTP_HOST', chorusHere],
    [['tools'], { CHORUS_TOOLS_HOST: '999.1.1.1' }, 'CHORUS_TOOLS_HOST', chorus],
    [['tools'], { SPAWNER_HOST: '999.1.1.1' }, 'SPAWNER_HOST', chorusHere],
    [['spawner'], { CHORUS_SPAWNER_HOST: '999.1.1.1' }, 'CHORUS_SPAWNER_HOST', chorus]
  ]
  for (const [args, env, name, runner] of cases) {
    const result = await runner(args, { ...env, TTS_LOG_LEVEL: 'error' })
    t.equal(result.code, 2, `${args[0]} with ${name}`)
    t.match(result.stderr, `Expected a host name or IP address for ${name} but received "999.1.1.1" (string)`)
    t.equal(result.stderr.trim().split('\n').length, 1, 'one line, no stack')
  }
})

t.test('chorus serve stops gracefully on SIGTERM with exit code 0', async t => {
  const { spawn } = await import('node:child_process')
  const { createServer } = await import('node:net')
  // A free port: bind to 0, read it, let it go.
  const port = await new Promise<number>(resolve => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
  const child = spawn(...chorusCommand(['serve']), {
    env: { PATH: process.env.PATH ?? '', TTS_HTTP_HOST: '127.0.0.1', TTS_HTTP_PORT: String(port), TTS_VOICE_DIR: await testVoiceDir(), TTS_DEFAULT_VOICE: 'en_US-probe-medium', TTS_WORKERS_PER_VOICE: '1' },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  let output = ''
  child.stdout.on('data', chunk => { output += String(chunk) })
  const exited = new Promise<number | null>(resolve => child.once('exit', code => resolve(code)))
  // Bounded only to end a hang: a start beside a busy CPU can take minutes.
  await eventually('the listening line', () => output.includes('"listening"'), 100)
  const health = await fetch(`http://127.0.0.1:${port}/health`)
  t.equal(health.status, 200)
  child.kill('SIGTERM')
  t.equal(await exited, 0)
  t.match(output, /"signal":"SIGTERM"/)
  t.match(output, /"msg":"stopped"/)
})
