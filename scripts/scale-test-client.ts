// The client half of npm run scale:test (scripts/scale-test.sh): speaks to
// the scaled stack (compose.scale.yaml) through its proxy as many clients
// would, and attacks it. Steps, by argv[2]:
//   affinity  every voice from many clients, over POST /tts (X-Chorus-Voice)
//             and the WebSocket (the voice in its path): the share of each
//             voice's answers made by its replica (100 % expected), what
//             each replica has loaded (only its voices), and each answer's
//             duration against the same request to a service on the host
//   failover  load, then SIGKILL to the replica that serves most voices:
//             requests lost (only those in flight on it), the errors they
//             got, the time until its voices are served by the other
//   rolling   load while each replica in turn is restarted (SIGTERM, drain,
//             start, ready again): 0 lost and 0 5xx expected
//   mcp       MCP sessions with the official SDK client through the proxy
//             (create, list, delete a bot): every request of a session on
//             the tool server that made it, the sessions on both
// Bounded: a fixed number of clients, each request within REQUEST_TIMEOUT_MS,
// each step within its own deadline; localhost only.

import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import { parseArgs } from 'node:util'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import WebSocket from 'ws'

const run = promisify(execFile)
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    proxy: { type: 'string' },
    tools: { type: 'string' },
    'tools-token': { type: 'string' },
    host: { type: 'string' },
    replica: { type: 'string', multiple: true },
    container: { type: 'string', multiple: true },
    voices: { type: 'string' }
  }
})
const step = positionals[0]
const proxy = values.proxy ?? 'http://127.0.0.1:8995'
const voices = (values.voices ?? '').split(',').filter(v => v !== '')
/** name=url of each TTS replica's own port. */
const replicas = new Map((values.replica ?? []).map(pair => pair.split('=') as [string, string]))
/** name=container of each TTS replica. */
const containers = new Map((values.container ?? []).map(pair => pair.split('=') as [string, string]))

/** A request never waits longer: a hang is an error with this name. */
const REQUEST_TIMEOUT_MS = 30_000
const CLIENTS = 8
const TEXTS = [
  'The replica that made this answer is named in its headers.',
  'Every voice stays on one replica, so each loads only its share.',
  'A short one.'
]
const QUIET = { noise_scale: 0, noise_w: 0 }

function fail (what: string): never {
  throw new Error(`scale-test: ${what}`)
}

function say (line: string): void {
  console.log(`scale-test: ${line}`)
}

interface Outcome {
  voice: string
  text: string
  replica: string | undefined
  status: number | undefined
  /** What the client saw when it got no answer. */
  error: string | undefined
  started: number
  ended: number
  seconds: number | undefined
}

/** WAV seconds from the header (16-bit mono). */
function wavSeconds (wav: Buffer): number {
  if (wav.length < 44 || wav.subarray(0, 4).toString() !== 'RIFF') fail(`not a WAV answer (${wav.length} bytes)`)
  return wav.readUInt32LE(40) / (wav.readUInt32LE(24) * 2)
}

function errorText (error: unknown): string {
  const cause = (error as { cause?: { code?: string, message?: string } }).cause
  const base = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  return cause?.code !== undefined ? `${base} (${cause.code})` : base
}

async function speak (base: string, voice: string, text: string): Promise<Outcome> {
  const started = performance.now()
  try {
    const response = await fetch(`${base}/tts`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Chorus-Voice': voice },
      body: JSON.stringify({ text, voice, format: 'wav', ...QUIET }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS)
    })
    const body = Buffer.from(await response.arrayBuffer())
    const ok = response.status === 200
    return {
      voice,
      text,
      replica: response.headers.get('x-chorus-replica') ?? undefined,
      status: response.status,
      error: ok ? undefined : `HTTP ${response.status}: ${body.toString().slice(0, 200)}`,
      started,
      ended: performance.now(),
      seconds: ok ? wavSeconds(body) : undefined
    }
  } catch (error) {
    return { voice, text, replica: undefined, status: undefined, error: errorText(error), started, ended: performance.now(), seconds: undefined }
  }
}

/** One WebSocket: the 101's replica and the audio's seconds (pcm_16000). */
async function speakOverSocket (voice: string, text: string): Promise<{ replica: string, seconds: number }> {
  const ws = new WebSocket(`${proxy.replace('http://', 'ws://')}/v1/text-to-speech/${voice}/stream-input?output_format=pcm_16000`)
  let replica = ''
  ws.once('upgrade', response => { replica = String(response.headers['x-chorus-replica']) })
  let bytes = 0
  const done = new Promise<void>((resolve, reject) => {
    const guard = setTimeout(() => { ws.terminate(); reject(new Error(`the WebSocket for ${voice} took over ${REQUEST_TIMEOUT_MS} ms`)) }, REQUEST_TIMEOUT_MS)
    ws.on('message', data => {
      const message = JSON.parse(String(data)) as { audio?: string, isFinal?: boolean, error?: string }
      if (message.error !== undefined) reject(new Error(`the WebSocket for ${voice} answered ${message.error}`))
      if (typeof message.audio === 'string') bytes += Buffer.from(message.audio, 'base64').length
    })
    ws.once('close', () => { clearTimeout(guard); resolve() })
    ws.once('error', error => { clearTimeout(guard); reject(error) })
  })
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject) })
  ws.send(JSON.stringify({ text: ' ', voice_settings: {} }))
  ws.send(JSON.stringify({ text: `${text} `, flush: true }))
  ws.send(JSON.stringify({ text: '' }))
  await done
  return { replica, seconds: bytes / 2 / 16000 }
}

/** CLIENTS loops over the voices until `until` says stop; every outcome kept. */
async function load (until: () => boolean, outcomes: Outcome[]): Promise<void> {
  let next = 0
  await Promise.all(Array.from({ length: CLIENTS }, async () => {
    while (!until()) {
      const index = next++
      outcomes.push(await speak(proxy, voices[index % voices.length] as string, TEXTS[index % TEXTS.length] as string))
    }
  }))
}

async function loadedOn (url: string): Promise<string[]> {
  const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
  return ((await response.json()) as { loaded_voices: string[] }).loaded_voices.filter(voice => voices.includes(voice))
}

/** Each voice's replica, from answers: fails if a voice was answered by two. */
function homes (outcomes: Outcome[]): Map<string, string> {
  const seen = new Map<string, Set<string>>()
  for (const o of outcomes) if (o.replica !== undefined) seen.set(o.voice, (seen.get(o.voice) ?? new Set()).add(o.replica))
  const result = new Map<string, string>()
  for (const [voice, set] of seen) {
    if (set.size !== 1) fail(`${voice} was answered by ${[...set].join(' and ')}`)
    result.set(voice, [...set][0] as string)
  }
  return result
}

async function affinity (): Promise<void> {
  const host = values.host ?? fail('--host URL of the service on the host is required')
  const outcomes: Outcome[] = []
  for (let round = 0; round < 3; round++) {
    await load(() => outcomes.length >= voices.length * TEXTS.length * (round + 1), outcomes)
  }
  const bad = outcomes.filter(o => o.status !== 200)
  if (bad.length > 0) fail(`${bad.length} of ${outcomes.length} requests failed, first: ${bad[0]?.error}`)
  const home = homes(outcomes)
  say(`affinity over POST /tts: ${outcomes.length} answers from ${CLIENTS} clients`)
  for (const voice of voices) {
    const mine = outcomes.filter(o => o.voice === voice)
    const share = mine.filter(o => o.replica === home.get(voice)).length / mine.length
    say(`  ${voice}: ${mine.length} answers, ${(share * 100).toFixed(0)} % on ${home.get(voice)}`)
  }
  // The WebSocket's voice is in its path: the same replica as over HTTP.
  for (const voice of voices) {
    const socket = await speakOverSocket(voice, TEXTS[0] as string)
    if (socket.replica !== home.get(voice)) fail(`${voice}'s WebSocket reached ${socket.replica}, its HTTP answers ${home.get(voice)}`)
    if (socket.seconds <= 0) fail(`${voice}'s WebSocket spoke no audio`)
  }
  say(`affinity over the WebSocket: ${voices.length} sockets, each on its voice's replica (100 %)`)
  for (const [name, url] of replicas) {
    const loaded = (await loadedOn(url)).sort()
    const expected = voices.filter(voice => home.get(voice) === name).sort()
    if (loaded.join() !== expected.join()) fail(`${name} has loaded ${loaded.join(', ')} but serves ${expected.join(', ')}`)
    say(`  ${name} loaded only its ${loaded.length} voices: ${loaded.join(', ')}`)
  }
  // Durations: the same request to the service on the host (noise off: the same length).
  let worst = 0
  for (const voice of voices) {
    for (const text of TEXTS) {
      const here = await speak(host, voice, text)
      const stacked = outcomes.find(o => o.voice === voice && o.text === text && o.seconds !== undefined)?.seconds ?? (await speak(proxy, voice, text)).seconds
      if (here.seconds === undefined || stacked === undefined) fail(`no duration for ${voice}: ${here.error}`)
      worst = Math.max(worst, Math.abs(here.seconds - stacked))
      if (Math.abs(here.seconds - stacked) > 0.001) fail(`${voice} "${text}": ${stacked.toFixed(3)} s through the stack, ${here.seconds.toFixed(3)} s on the host`)
    }
  }
  const lengths = outcomes.map(o => o.seconds ?? 0)
  say(`durations: ${voices.length * TEXTS.length} answers the same length as on the host (largest difference ${(worst * 1000).toFixed(1)} ms; answers ${Math.min(...lengths).toFixed(2)} to ${Math.max(...lengths).toFixed(2)} s)`)
}

async function podman (...args: string[]): Promise<void> {
  await run('podman', args, { timeout: 180_000 })
}

async function readyDirect (url: string): Promise<boolean> {
  try {
    return (await fetch(`${url}/ready`, { signal: AbortSignal.timeout(2000) })).status === 200
  } catch {
    return false
  }
}

async function until (what: string, check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const deadline = performance.now() + timeoutMs
  while (!await check()) {
    if (performance.now() > deadline) fail(`${what}: not within ${timeoutMs / 1000} s`)
    await new Promise(resolve => setTimeout(resolve, 200))
  }
}

async function failover (): Promise<void> {
  // Warm: every voice answered once, so homes are known.
  const warm: Outcome[] = []
  await load(() => warm.length >= voices.length * 2, warm)
  const home = homes(warm.filter(o => o.status === 200))
  const count = (name: string): number => [...home.values()].filter(h => h === name).length
  const victim = [...replicas.keys()].sort((a, b) => count(b) - count(a))[0] as string
  const survivor = [...replicas.keys()].find(name => name !== victim) as string
  const moved = voices.filter(voice => home.get(voice) === victim)
  const outcomes: Outcome[] = []
  let stop = false
  const running = load(() => stop, outcomes)
  await new Promise(resolve => setTimeout(resolve, 3000))
  const killedAt = performance.now()
  await podman('kill', '--signal', 'KILL', containers.get(victim) ?? fail(`no container for ${victim}`))
  // Recovered: every voice of the victim answered by the survivor.
  await until(`${victim}'s voices served by ${survivor}`, () => moved.every(voice => outcomes.some(o => o.voice === voice && o.started >= killedAt && o.replica === survivor && o.status === 200)), 60_000)
  const recovered = Math.max(...moved.map(voice => (outcomes.find(o => o.voice === voice && o.started >= killedAt && o.replica === survivor && o.status === 200) as Outcome).ended)) - killedAt
  await new Promise(resolve => setTimeout(resolve, 2000))
  stop = true
  await running
  const lost = outcomes.filter(o => o.status !== 200)
  const inFlight = lost.filter(o => o.started <= killedAt)
  say(`failover: SIGKILL to ${victim} (home of ${moved.length} voices: ${moved.join(', ')}) under ${CLIENTS} clients`)
  say(`  requests: ${outcomes.length}, lost: ${lost.length} (in flight at the kill: ${inFlight.length}, started after it: ${lost.length - inFlight.length})`)
  for (const o of lost) say(`  lost ${o.voice} after ${((o.ended - o.started) / 1000).toFixed(2)} s: ${o.error}`)
  say(`  time until ${survivor} served all of ${victim}'s voices: ${(recovered / 1000).toFixed(2)} s`)
  const hung = outcomes.filter(o => o.error?.includes('TimeoutError') === true)
  if (hung.length > 0) fail(`${hung.length} requests hung until the client's timeout`)
  if (lost.length - inFlight.length > 0) fail(`${lost.length - inFlight.length} requests that started after the kill were lost`)
  // The killed replica comes back (restart: unless-stopped, or started here).
  await podman('start', containers.get(victim) as string).catch(() => {})
  await until(`${victim} ready again`, async () => await readyDirect(replicas.get(victim) as string), 120_000)
}

async function rolling (): Promise<void> {
  const outcomes: Outcome[] = []
  let stop = false
  const running = load(() => stop, outcomes)
  const timings: string[] = []
  for (const [name, url] of replicas) {
    await new Promise(resolve => setTimeout(resolve, 2000))
    const started = performance.now()
    // SIGTERM, the drain, exit, start: what a rolling update does to each replica.
    await podman('restart', '--time', '75', containers.get(name) ?? fail(`no container for ${name}`))
    await until(`${name} ready after its restart`, async () => await readyDirect(url), 120_000)
    // The proxy's check (every second, two passes) takes it back.
    await new Promise(resolve => setTimeout(resolve, 3000))
    timings.push(`${name} ${((performance.now() - started) / 1000).toFixed(1)} s`)
  }
  stop = true
  await running
  const lost = outcomes.filter(o => o.status === undefined)
  const errors5xx = outcomes.filter(o => o.status !== undefined && o.status >= 500)
  const byReplica = new Map<string, number>()
  for (const o of outcomes) if (o.replica !== undefined) byReplica.set(o.replica, (byReplica.get(o.replica) ?? 0) + 1)
  say(`rolling restart of ${[...replicas.keys()].join(' then ')} (restart to ready and back in the proxy: ${timings.join(', ')}) under ${CLIENTS} clients`)
  say(`  requests: ${outcomes.length} (${[...byReplica].map(([r, n]) => `${r} ${n}`).join(', ')}), lost: ${lost.length}, 5xx: ${errors5xx.length}, other failures: ${outcomes.filter(o => o.status !== undefined && o.status !== 200 && o.status < 500).length}`)
  for (const o of [...lost, ...errors5xx].slice(0, 10)) say(`  failed ${o.voice}: ${o.error}`)
  if (lost.length > 0 || errors5xx.length > 0 || outcomes.some(o => o.status !== 200)) fail('the rolling restart lost requests or answered errors')
}

/** One MCP session through the proxy; every request's tool server recorded. */
async function mcpSession (index: number): Promise<{ replicas: Set<string>, id: string }> {
  const token = values['tools-token']
  const seen = new Set<string>()
  const recording: typeof fetch = async (input, init) => {
    const response = await fetch(input, { ...init, signal: init?.signal ?? AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
    const replica = response.headers.get('x-chorus-tools-replica')
    if (replica !== null) seen.add(replica)
    return response
  }
  const client = new Client({ name: `chorus-scale-test-${index}`, version: '0.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL(`${values.tools ?? 'http://127.0.0.1:8999'}/mcp`), {
    requestInit: { headers: token === undefined ? {} : { Authorization: `Bearer ${token}` } },
    fetch: recording
  })
  await client.connect(transport)
  try {
    const bot = { first: 'Scale', last: `Session${index}` }
    const created = await client.callTool({ name: 'bot_create', arguments: { ...bot, level: 'BUILDER' } })
    if (created.isError === true) fail(`bot_create in session ${index} failed: ${JSON.stringify(created.content)}`)
    const listed = await client.callTool({ name: 'bot_list', arguments: {} })
    if (!JSON.stringify(listed.structuredContent ?? listed.content).includes(bot.last)) fail(`bot_list in session ${index} does not show ${bot.last}`)
    const deleted = await client.callTool({ name: 'bot_delete', arguments: bot })
    if (deleted.isError === true) fail(`bot_delete in session ${index} failed`)
    const after = await client.callTool({ name: 'bot_list', arguments: {} })
    if (JSON.stringify(after.structuredContent ?? after.content).includes(bot.last)) fail(`bot_list in session ${index} still shows ${bot.last}`)
    return { replicas: seen, id: transport.sessionId ?? fail(`session ${index} got no Mcp-Session-Id`) }
  } finally {
    await client.close()
  }
}

async function mcp (): Promise<void> {
  const sessions = await Promise.all([1, 2, 3, 4].map(mcpSession))
  for (const [i, session] of sessions.entries()) {
    if (session.replicas.size !== 1) fail(`MCP session ${i + 1} was answered by ${[...session.replicas].join(' and ')}`)
  }
  const used = new Set(sessions.flatMap(s => [...s.replicas]))
  say(`MCP: ${sessions.length} sessions (create, list, delete a bot) with the SDK client, each on one tool server: ${sessions.map((s, i) => `session ${i + 1} on ${[...s.replicas][0]}`).join(', ')}`)
  if (used.size < 2) fail(`the sessions used only ${[...used].join('')}: not across tool-server replicas`)
}

if (voices.length === 0 && step !== 'mcp') fail('--voices a,b,... is required')
if (step === 'affinity') await affinity()
else if (step === 'failover') await failover()
else if (step === 'rolling') await rolling()
else if (step === 'mcp') await mcp()
else fail(`expected affinity, failover, rolling or mcp but received ${String(step)}`)
