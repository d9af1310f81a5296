// The figures of a run as table rows, shared by the terminal summary and the
// Markdown report so both always show the same numbers.

import { levelLabel } from './aggregate.js'
import type { CeilingResult, LevelResult, SweepResults, TargetsResults } from './results.js'
import { markdownTable, megabytes, num, ratio, textTable, type Column } from './table.js'

interface LevelColumn extends Column {
  cell: (level: LevelResult) => string
  /** Only for synthesis (not GET /health). */
  audio?: boolean
  /** Left out of the terminal to keep it narrow; always in the report. */
  reportOnly?: boolean
}

const errorCount = (level: LevelResult) => Object.values(level.errors).reduce((sum, n) => sum + n, 0)

const LEVEL_COLUMNS: LevelColumn[] = [
  { header: 'load', align: 'left', cell: levelLabel },
  { header: 'requests', cell: level => String(level.requests) },
  { header: 'errors', cell: level => String(errorCount(level)) },
  { header: 'req/s', cell: level => num(level.requestsPerSecond) },
  { header: 'audio s/s', audio: true, cell: level => num(level.audioSecondsPerSecond) },
  { header: '× ceiling', audio: true, cell: level => ratio(level.ceilingFraction) },
  { header: 'chars/s', audio: true, reportOnly: true, cell: level => num(level.charactersPerSecond) },
  { header: 'p50 ms', cell: level => num(level.latencyMs?.p50) },
  { header: 'p90 ms', cell: level => num(level.latencyMs?.p90) },
  { header: 'p99 ms', cell: level => num(level.latencyMs?.p99) },
  { header: 'max ms', cell: level => num(level.latencyMs?.max) },
  { header: 'TTFB p50', cell: level => num(level.ttfbMs?.p50) },
  { header: 'TTFB p99', cell: level => num(level.ttfbMs?.p99) },
  { header: 'RTF p50', audio: true, reportOnly: true, cell: level => num(level.realTimeFactor?.p50) },
  { header: 'queue max', cell: level => num(level.server?.queueDepth?.max) },
  { header: 'loads', audio: true, cell: level => num(level.server?.voiceLoads) },
  { header: 'evictions', audio: true, cell: level => num(level.server?.voiceEvictions) },
  { header: 'RSS MB', cell: level => megabytes(level.server?.rssBytes?.max) }
]

function levelColumns (results: SweepResults, report: boolean): LevelColumn[] {
  const openLoop = results.load.model === 'open'
  const columns = LEVEL_COLUMNS.filter(c => (results.endpoint === 'tts' || c.audio !== true) && (report || c.reportOnly !== true))
  // In an open loop the harness's own lateness belongs next to the latencies.
  if (openLoop && report) columns.push({ header: 'send lag p99 ms', cell: level => num(level.sendLagMs?.p99) })
  return columns
}

export function levelTable (results: SweepResults, style: 'text' | 'markdown'): string {
  const columns = levelColumns(results, style === 'markdown')
  const rows = results.levels.map(level => columns.map(c => c.cell(level)))
  return style === 'text' ? textTable(columns, rows) : markdownTable(columns, rows)
}

const TARGET_COLUMNS: Column[] = [
  { header: 'figure', align: 'left' },
  { header: 'measured', align: 'left' },
  { header: 'ratio' },
  { header: 'target' },
  { header: 'result', align: 'left' }
]

/** More digits than elsewhere: a ratio shown as 2.50× must not read as met when it is 2.503×. */
function targetRatio (value: number | null): string {
  return value === null ? '–' : `${value.toFixed(value >= 100 ? 0 : value >= 10 ? 1 : 3)}×`
}

export function targetsTable (results: Pick<TargetsResults, 'figures'>, style: 'text' | 'markdown'): string {
  const rows = results.figures.map(f => [
    f.figure,
    f.measured,
    targetRatio(f.ratio),
    `${f.target.op === '<=' ? '≤' : '≥'} ${f.target.value}×`,
    f.met === null ? 'not measured' : f.met ? 'met' : 'MISSED'
  ])
  return style === 'text' ? textTable(TARGET_COLUMNS, rows) : markdownTable(TARGET_COLUMNS, rows)
}

const ENGINE_NAMES = { onnxruntime: 'onnxruntime-node on the unmodified model', chorus: 'Chorus\'s engine', 'chorus-split': 'Chorus\'s engine, split as the service runs it' } as const

function oneCeiling (label: string, c: CeilingResult): string {
  return `${label} (${ENGINE_NAMES[c.engine ?? 'chorus']}, ${c.workers} workers × ${c.intraOpThreads} thread): ${num(c.audioSecondsPerSecond)} audio s/s ` +
    `(median of ${c.repeatResults.map(num).join(', ')}; ${c.secondsPerRepeat} s each)`
}

/** The ceiling; where Chorus's engine was measured beside an outside one, a second line with it against that. */
export function ceilingLines (results: Pick<SweepResults, 'ceiling' | 'engineCeiling'>): string[] {
  const c = results.ceiling
  if (c === null) return ['ceiling: not measured']
  const engine = results.engineCeiling
  if (engine === undefined || engine === null) return [oneCeiling('ceiling', c)]
  const share = c.audioSecondsPerSecond > 0 ? engine.audioSecondsPerSecond / c.audioSecondsPerSecond : null
  return [oneCeiling('ceiling', c), `${oneCeiling('engine alone', engine)}: ${ratio(share)} the ceiling`]
}

/** What the terminal shows at the end of a sweep. */
export function sweepSummary (results: SweepResults, outDir: string): string {
  const errors = results.levels.flatMap(level => Object.entries(level.errorMessages).map(([key, message]) => `  ${levelLabel(level)} ${key}: ${message}`))
  return [
    `chorus bench: ${results.endpoint === 'tts' ? 'POST /tts' : 'GET /health'} on ${results.target.url}, ${results.load.model} loop`,
    ...(results.endpoint === 'tts' ? ceilingLines(results) : []),
    '',
    levelTable(results, 'text'),
    ...(errors.length > 0 ? ['', 'errors:', ...errors] : []),
    ...results.notes.map(note => `note: ${note}`),
    '',
    `results: ${outDir}/results.json, report.md, throughput.svg, latency.svg`
  ].join('\n') + '\n'
}

export function targetsSummary (results: TargetsResults, outDir: string): string {
  return [
    `chorus bench targets: ${results.voice}, ${results.machine.cpus} cores, ${results.workersPerVoice} workers`,
    ...ceilingLines(results),
    '',
    targetsTable(results, 'text'),
    '',
    ...results.info.map(i => `${i.figure}: ${i.value}`),
    ...results.notes.map(note => `note: ${note}`),
    '',
    `results: ${outDir}/results.json, report.md`
  ].join('\n') + '\n'
}
