// `chorus bench compare a.json b.json`: two runs side by side, with b/a
// ratios, so a change can be judged on the same workload and load levels.
// Levels are matched by load model and load; unmatched ones are listed apart.

import { ConfigError } from '../src/errors.js'
import { levelLabel } from './aggregate.js'
import type { BenchResults, LevelResult, SweepResults, TargetsResults } from './results.js'
import { num, ratio, textTable, type Column } from './table.js'

function quotient (b: number | null | undefined, a: number | null | undefined): number | null {
  if (a === null || a === undefined || b === null || b === undefined || a === 0 || !Number.isFinite(a) || !Number.isFinite(b)) return null
  return b / a
}

const errorCount = (level: LevelResult) => Object.values(level.errors).reduce((sum, n) => sum + n, 0)

interface Metric {
  name: string
  pick: (level: LevelResult) => number | null | undefined
}

const METRICS: Metric[] = [
  { name: 'req/s', pick: level => level.requestsPerSecond },
  { name: 'audio s/s', pick: level => level.audioSecondsPerSecond },
  { name: 'p50 ms', pick: level => level.latencyMs?.p50 },
  { name: 'p99 ms', pick: level => level.latencyMs?.p99 },
  { name: 'TTFB p50', pick: level => level.ttfbMs?.p50 }
]

function compareSweeps (a: SweepResults, b: SweepResults): string {
  const columns: Column[] = [{ header: 'load', align: 'left' }]
  for (const metric of METRICS) columns.push({ header: `${metric.name} a` }, { header: 'b' }, { header: 'b/a' })
  columns.push({ header: 'errors a' }, { header: 'b' })
  const key = (level: LevelResult) => `${level.model}|${level.load.toFixed(3)}`
  const byKey = new Map(b.levels.map(level => [key(level), level]))
  const rows: string[][] = []
  const unmatched: string[] = []
  for (const levelA of a.levels) {
    const levelB = byKey.get(key(levelA))
    if (levelB === undefined) {
      unmatched.push(`a ${levelLabel(levelA)}`)
      continue
    }
    byKey.delete(key(levelA))
    const row = [levelLabel(levelA)]
    for (const metric of METRICS) {
      const va = metric.pick(levelA)
      const vb = metric.pick(levelB)
      row.push(num(va), num(vb), ratio(quotient(vb, va)))
    }
    row.push(String(errorCount(levelA)), String(errorCount(levelB)))
    rows.push(row)
  }
  unmatched.push(...[...byKey.values()].map(level => `b ${levelLabel(level)}`))
  const ca = a.ceiling?.audioSecondsPerSecond
  const cb = b.ceiling?.audioSecondsPerSecond
  return [
    `ceiling audio s/s: a ${num(ca)}, b ${num(cb)}, b/a ${ratio(quotient(cb, ca))}`,
    '',
    textTable(columns, rows),
    ...(unmatched.length > 0 ? ['', `levels in one run only: ${unmatched.join(', ')}`] : [])
  ].join('\n')
}

function compareTargets (a: TargetsResults, b: TargetsResults): string {
  const columns: Column[] = [
    { header: 'figure', align: 'left' }, { header: 'target' },
    { header: 'ratio a' }, { header: 'ratio b' }, { header: 'b/a' }, { header: 'a', align: 'left' }, { header: 'b', align: 'left' }
  ]
  const verdict = (met: boolean | null | undefined) => met === undefined || met === null ? '–' : met ? 'met' : 'MISSED'
  const byId = new Map(b.figures.map(figure => [figure.id, figure]))
  const rows = a.figures.map(fa => {
    const fb = byId.get(fa.id)
    return [
      fa.figure,
      `${fa.target.op === '<=' ? '≤' : '≥'} ${fa.target.value}×`,
      ratio(fa.ratio), ratio(fb?.ratio), ratio(quotient(fb?.ratio, fa.ratio)), verdict(fa.met), verdict(fb?.met)
    ]
  })
  return [
    `ceiling audio s/s: a ${num(a.ceiling.audioSecondsPerSecond)}, b ${num(b.ceiling.audioSecondsPerSecond)}`,
    '',
    textTable(columns, rows)
  ].join('\n')
}

export function compareResults (a: BenchResults, b: BenchResults): string {
  const header = `a: ${a.label} (${a.startedAt})\nb: ${b.label} (${b.startedAt})\n\n`
  if (a.kind === 'sweep' && b.kind === 'sweep') return header + compareSweeps(a, b) + '\n'
  if (a.kind === 'targets' && b.kind === 'targets') return header + compareTargets(a, b) + '\n'
  throw new ConfigError(`Expected two results of the same kind but received a ${a.kind} and a ${b.kind} run`)
}
