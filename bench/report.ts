// report.md: a run written up for people, with the same tables as the
// terminal, the charts, the server's side, and how to read it.

import { levelLabel } from './aggregate.js'
import type { MachineInfo, SweepResults, TargetsResults } from './results.js'
import { ceilingLines, levelTable, targetsTable } from './summary.js'
import { markdownTable, megabytes, num } from './table.js'

function machineLine (m: MachineInfo, startedAt: string, finishedAt: string): string {
  return `Run from ${startedAt} to ${finishedAt} on ${m.cpus} cores (${m.cpuModel}), ${(m.memoryBytes / 2 ** 30).toFixed(0)} GiB, ` +
    `Node ${m.node} (${m.platform}/${m.arch}); load average ${m.loadAverage.map(v => v.toFixed(2)).join(', ')} at the start.`
}

function setup (r: SweepResults): string[] {
  const w = r.workload
  const texts = w.texts === 'corpus' ? `the built-in corpus (seed ${w.seed})` : `${w.texts.file} (${w.texts.lines} texts, seed ${w.seed})`
  const voices = w.voices.map(v => w.voices.length > 1 ? `${v.name} (weight ${v.weight})` : v.name).join(', ')
  const params = Object.entries(w.synthesis).map(([key, value]) => `${key} ${String(value)}`).join(', ')
  const load = r.load
  const held = load.durationSeconds !== null ? `${load.durationSeconds} s` : `${load.requestsPerLevel ?? 0} requests`
  const model = load.model === 'closed'
    ? 'closed loop (each client sends its next request when the last one finished)'
    : `open loop (${load.arrivals ?? 'constant'} arrivals; latency from the scheduled send time)`
  const target = r.target.inProcess
    ? `${r.target.url}, started in-process over ${r.target.voiceDir ?? '?'} with ${r.target.workersPerVoice ?? '?'} workers per voice`
    : r.target.url
  return [
    `- Target: ${target}`,
    `- Endpoint: ${r.endpoint === 'tts' ? 'POST /tts' : 'GET /health'}`,
    ...(r.endpoint === 'tts'
      ? [`- Workload: ${texts}; voices ${voices}; ${params === '' ? 'voice defaults' : params}; streaming ${w.stream ? 'on' : 'off'}; repeated phrases ${(w.repeatRatio * 100).toFixed(0)} %`]
      : []),
    `- Load: ${model}; each level held for ${held} after a ${load.warmupSeconds} s warm-up; request timeout ${load.timeoutSeconds} s`
  ]
}

function serverTable (r: SweepResults): string {
  const columns = [
    { header: 'load', align: 'left' as const },
    { header: 'queue mean' }, { header: 'queue max' }, { header: 'pending max' }, { header: 'RSS max MB' },
    { header: 'cache hits' }, { header: 'cache misses' }, { header: 'voice loads' }, { header: 'evictions' }, { header: 'scrapes (failed)' }
  ]
  const rows = r.levels.map(level => {
    const s = level.server
    return [
      levelLabel(level),
      num(s?.queueDepth?.mean), num(s?.queueDepth?.max), num(s?.pendingRequests?.max), megabytes(s?.rssBytes?.max),
      num(s?.cacheHits), num(s?.cacheMisses), num(s?.voiceLoads), num(s?.voiceEvictions), s === null ? '–' : `${s.samples} (${s.failedScrapes})`
    ]
  })
  return markdownTable(columns, rows)
}

function errorsSection (r: SweepResults): string[] {
  const lines = r.levels.flatMap(level => Object.entries(level.errors).map(([key, count]) =>
    `- ${levelLabel(level)}: ${count} × ${key}${level.errorMessages[key] === undefined ? '' : ` (${level.errorMessages[key]})`}`))
  return lines.length === 0 ? ['None.'] : lines
}

const READING = `- **req/s** counts requests that completed inside the measured window, over its length. **audio s/s** and **chars/s** spread each request's audio (or text) evenly over its time in flight and count the part inside the window, so a long paragraph at the window's edge counts in part instead of all or nothing.
- **× ceiling** is audio s/s over the ceiling's: the same voice and texts (the same phoneme ids) run straight through onnxruntime-node's InferenceSession on the unmodified model, one worker per core with one intra-op thread, no HTTP. It is measured from outside Chorus, so a slower engine shows here too; *engine alone* is Chorus's engine measured the same way in the same run, against that ceiling. Near 1 means the service adds little. Above 1 means a phrase cache answered repeated texts, or the machine was busier while the ceiling was measured (short runs on a shared machine are noisy).
- **Latency** (p50/p90/p99/max) is over successful requests due in the window, from the time a request was due to its last byte; in an open loop "due" is the schedule, so queueing inside the server (or a late harness) counts. Failures are listed under errors instead.
- **TTFB** is the time to the first byte of audio, past the WAV header: with streaming, when the first sentence arrives; without, close to the whole latency.
- **RTF p50** is the median of latency over audio duration per request (below 1: faster than real time).
- **queue**, **pending** and **RSS** come from the service's /metrics, sampled during each level.
- **send lag** (open loop) is how late the harness itself sent requests: if it grows, the harness was the bottleneck.`

export function sweepReport (r: SweepResults): string {
  return [
    `# Chorus load test: ${r.label}`,
    '',
    machineLine(r.machine, r.startedAt, r.finishedAt),
    '',
    '## Setup',
    '',
    ...setup(r),
    '',
    '## Ceiling',
    '',
    r.endpoint === 'tts' ? ceilingLines(r).join('\n\n') : 'Not measured for GET /health.',
    '',
    '## Results',
    '',
    levelTable(r, 'markdown'),
    '',
    '![Throughput against load](throughput.svg)',
    '',
    '![Latency against load](latency.svg)',
    '',
    '## Server side',
    '',
    serverTable(r),
    '',
    '## Errors',
    '',
    ...errorsSection(r),
    ...(r.notes.length > 0 ? ['', '## Notes', '', ...r.notes.map(note => `- ${note}`)] : []),
    '',
    '## How to read this',
    '',
    READING,
    ''
  ].join('\n')
}

const HOW_TARGETS_ARE_MEASURED = `- **Bare engine**: worker threads in this process, each loading the voice with one intra-op thread and running ONNX Runtime on phoneme ids computed beforehand (no HTTP, no queue). The ceiling runs one worker per core on the corpus texts; per-text times run one worker while the others idle, sentences one after another.
- **Service**: started in-process with the phrase cache off (TTS_CACHE_BYTES=0), every other setting from TTS_* variables; the voice is its default voice, loaded at start-up.
- **Short sentence, 6-sentence reply**: the median latency of sequential requests on the idle service against the median bare time of the same text (the reply: the sum of its sentences).
- **Streaming TTFB**: time to the first audio byte past the WAV header of a streamed 10-sentence text, against the bare time of its first sentence.
- **Saturation**: closed loop with four clients per worker on the corpus; the median of the runs' audio seconds per second.
- **Open loop**: a 2-sentence reply at 70 % of the ceiling (in requests per second through its audio length), constant arrivals, latency from the scheduled send time; its p99 against the same request's idle median.
- **Repeated phrase**: closed loop on one stock phrase, on a second service with the phrase cache as configured, against the uncached service.
- **RSS per worker**: GET /voices \`memory_bytes\` (what the voice's workers added to the process when it loaded) over the workers, against the model file's size.`

export function targetsReport (r: TargetsResults): string {
  return [
    `# Chorus targets: ${r.label}`,
    '',
    machineLine(r.machine, r.startedAt, r.finishedAt),
    `Voice ${r.voice} (model ${(r.modelBytes / 1e6).toFixed(1)} MB), ${r.workersPerVoice} workers per voice, one intra-op thread each.`,
    '',
    ceilingLines(r).join('\n\n'),
    '',
    targetsTable(r, 'markdown'),
    '',
    ...r.info.map(i => `- ${i.figure}: ${i.value}`),
    ...(r.notes.length > 0 ? ['', '## Notes', '', ...r.notes.map(note => `- ${note}`)] : []),
    '',
    '## How each figure is measured',
    '',
    HOW_TARGETS_ARE_MEASURED,
    ''
  ].join('\n')
}
