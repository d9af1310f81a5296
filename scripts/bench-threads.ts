// npm run bench:threads [-- --voice PATH --seconds N]
// Chooses the service's thread settings by measurement: for each
// (workers per voice × ONNX intra-op threads) it starts the service in this
// process on the given voice and measures, side by side in one run:
//   - idle latency of one short sentence and of a 6-sentence reply (median of 5)
//   - throughput with 8 clients in a closed loop (audio seconds per second)

import { copyFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { parseArgs } from 'node:util'
import { parseWav } from '../src/engine/index.js'
import { ensureBenchVoices } from './make-bench-voices.js'
import { loadServiceConfig } from '../src/service/config.js'
import { createLogger } from '../src/shared/logger.js'
import { startService } from '../src/service/server.js'
import { median } from '../bench/stats.js'

const { values: flags } = parseArgs({
  options: {
    voice: { type: 'string' },
    seconds: { type: 'string', default: '20' },
    settings: { type: 'string', default: '2x1,1x2,2x2,4x1' }
  }
})
// Without --voice, the project's own stand-in (generated on first use).
const voicePath = flags.voice ?? join(await ensureBenchVoices(), 'en_US-bench-medium.onnx')
const seconds = Number(flags.seconds)
const SHORT = 'Hello there, welcome back!'
const REPLY = 'Sure, I can help with that. The workshop is on the second floor. Take the stairs by the fountain. ' +
  'Ask for Maria when you get there. She will show you the new builds. Have a lovely afternoon!'
const LOAD_TEXTS = [SHORT, REPLY, 'Follow me, the path through the forest is a little tricky.', 'No problem at all.']

const voiceDir = await mkdtemp(join(tmpdir(), 'chorus-bench-threads-'))
const name = basename(voicePath).replace(/\.onnx$/, '')
await copyFile(voicePath, join(voiceDir, `${name}.onnx`))
await copyFile(`${voicePath}.json`, join(voiceDir, `${name}.onnx.json`))

async function tts (url: string, text: string): Promise<number> {
  const response = await fetch(url + '/tts', { method: 'POST', body: JSON.stringify({ text, voice: name }), headers: { 'Content-Type': 'application/json' } })
  const body = new Uint8Array(await response.arrayBuffer())
  if (response.status !== 200) throw new Error(`HTTP ${response.status}`)
  return parseWav(body).duration
}

async function timed (url: string, text: string, repeats: number): Promise<number> {
  const times: number[] = []
  for (let i = 0; i < repeats; i++) {
    const start = performance.now()
    await tts(url, text)
    times.push(performance.now() - start)
  }
  return median(times)
}

async function throughput (url: string, clients: number, ms: number): Promise<number> {
  const end = performance.now() + ms
  let audio = 0
  const started = performance.now()
  await Promise.all(Array.from({ length: clients }, async (_, c) => {
    for (let i = c; performance.now() < end; i++) {
      const seconds = await tts(url, LOAD_TEXTS[i % LOAD_TEXTS.length])
      audio += seconds
    }
  }))
  return audio / ((performance.now() - started) / 1000)
}

console.log(`voice ${name}; closed loop 8 clients for ${seconds} s; latencies are medians of 5 on an idle server`)
console.log('workers x threads   short ms   6-sentence ms   audio s/s')
for (const setting of flags.settings.split(',')) {
  const [workers, threads] = setting.split('x')
  const config = loadServiceConfig({
    TTS_HTTP_HOST: '127.0.0.1', TTS_HTTP_PORT: '0', TTS_VOICE_DIR: voiceDir, TTS_DEFAULT_VOICE: name,
    TTS_WORKERS_PER_VOICE: workers, TTS_ONNX_THREADS: threads, TTS_CACHE_BYTES: '0', TTS_MAX_PENDING: '1000'
  })
  const service = await startService(config, createLogger('chorus-tts', 'silent'))
  await timed(service.url, REPLY, 1)
  const short = await timed(service.url, SHORT, 5)
  const reply = await timed(service.url, REPLY, 5)
  const rate = await throughput(service.url, 8, seconds * 1000)
  console.log(`${setting.padEnd(17)} ${short.toFixed(0).padStart(8)} ${reply.toFixed(0).padStart(15)} ${rate.toFixed(1).padStart(11)}`)
  await service.close()
}
await rm(voiceDir, { recursive: true, force: true })
