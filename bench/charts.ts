// SVG charts of a sweep, drawn by Vega-Lite and rendered headless by Vega
// (no browser, no canvas, nothing fetched): throughput against load with the
// ceiling (onnxruntime-node on the unmodified model) drawn in, and latency percentiles against load.

import { parse, View } from 'vega'
import { compile, type TopLevelSpec } from 'vega-lite'
import { loadValue } from './aggregate.js'
import type { LevelResult, SweepResults } from './results.js'

const WIDTH = 560
const HEIGHT = 320

async function render (spec: TopLevelSpec): Promise<string> {
  const view = new View(parse(compile(spec).spec), { renderer: 'none' })
  try {
    return await view.toSVG()
  } finally {
    view.finalize()
  }
}

function loadAxis (results: SweepResults): { title: string, labels: string[] } {
  const title = results.load.model === 'closed' ? 'concurrent clients' : 'offered rate (requests per second)'
  return { title, labels: results.levels.map(loadValue) }
}

export async function throughputChart (results: SweepResults): Promise<string> {
  const axis = loadAxis(results)
  const synthesis = results.endpoint === 'tts'
  const yTitle = synthesis ? 'audio seconds per second' : 'requests per second'
  const values = results.levels.map(level => ({
    load: loadValue(level),
    value: synthesis ? level.audioSecondsPerSecond : level.requestsPerSecond
  }))
  const x = { field: 'load', type: 'ordinal' as const, sort: axis.labels, title: axis.title, axis: { labelAngle: 0 } }
  const measured = {
    data: { values },
    mark: { type: 'line' as const, point: true },
    encoding: { x, y: { field: 'value', type: 'quantitative' as const, title: yTitle } }
  }
  const ceiling = synthesis && results.ceiling !== null ? results.ceiling.audioSecondsPerSecond : null
  const layers: TopLevelSpec[] = ceiling === null
    ? []
    : [
        { data: { values: [{ ceiling }] }, mark: { type: 'rule', color: '#c0392b', strokeDash: [6, 4] }, encoding: { y: { field: 'ceiling', type: 'quantitative' } } },
        {
          data: { values: [{ ceiling, label: `ceiling ${ceiling.toFixed(1)}` }] },
          mark: { type: 'text', align: 'left', dx: 4, dy: -6, color: '#c0392b', x: 0 },
          encoding: { y: { field: 'ceiling', type: 'quantitative' }, text: { field: 'label' } }
        }
      ] as TopLevelSpec[]
  return await render({
    title: synthesis ? 'Throughput against load' : 'GET /health throughput against load',
    width: WIDTH,
    height: HEIGHT,
    background: 'white',
    layer: [measured, ...layers]
  } as TopLevelSpec)
}

export async function latencyChart (results: SweepResults): Promise<string> {
  const axis = loadAxis(results)
  const series: Array<[string, (level: LevelResult) => number | undefined]> = [
    ['latency p50', level => level.latencyMs?.p50],
    ['latency p90', level => level.latencyMs?.p90],
    ['latency p99', level => level.latencyMs?.p99]
  ]
  if (results.endpoint === 'tts') series.push(['TTFB p50', level => level.ttfbMs?.p50])
  const values = results.levels.flatMap(level => series.flatMap(([stat, pick]) => {
    const value = pick(level)
    return value === undefined ? [] : [{ load: loadValue(level), stat, value }]
  }))
  return await render({
    title: 'Latency against load',
    width: WIDTH,
    height: HEIGHT,
    background: 'white',
    data: { values },
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'load', type: 'ordinal', sort: axis.labels, title: axis.title, axis: { labelAngle: 0 } },
      y: { field: 'value', type: 'quantitative', title: 'milliseconds' },
      color: { field: 'stat', type: 'nominal', title: null, sort: series.map(([stat]) => stat) }
    }
  })
}
