// deploy/grafana/chorus.json against what Chorus really exports: every
// panel's PromQL is parsed with Prometheus's own grammar (lezer-promql), and
// each metric it selects must appear in a live /metrics of a test TTS service
// or of a tool server.

import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parser } from '@prometheus-io/lezer-promql'
import t from 'tap'
import { PACKAGE_ROOT } from '../../src/package-root.js'
import { startToolsHttpServer } from '../../src/tools/http-transport.js'
import { ToolMetrics } from '../../src/tools/metrics.js'
import { TOOLS_DEFAULTS } from '../../src/tools/config.js'
import { request, startTestService } from '../helpers/service.js'
import { connectHttp, startReferenceSpawner, toolsContext } from '../tools/helpers.js'

interface Panel { title?: string, type: string, targets?: Array<{ expr: string }>, panels?: Panel[] }
const dashboard = JSON.parse(await readFile(join(PACKAGE_ROOT, 'deploy/grafana/chorus.json'), 'utf8')) as { panels: Panel[] }

// Grafana fills these in before Prometheus sees the query; the values only
// need to parse as what Grafana would put there.
const GRAFANA_VARIABLES: Record<string, string> = { $__rate_interval: '5m', $__interval: '1m', $tts_job: 'chorus-tts', $tools_job: 'chorus-tools' }

function substitute (expr: string): string {
  return expr.replace(/\$\w+/g, name => {
    const value = GRAFANA_VARIABLES[name]
    if (value === undefined) throw new Error(`unknown Grafana variable ${name} in ${expr}`)
    return value
  })
}

/** The metric names a PromQL expression selects; throws on a syntax error
 * or a selector without a plain metric name (`{__name__=~"..."}`), which no
 * check could follow. */
function metricNames (expr: string): string[] {
  const query = substitute(expr)
  const tree = parser.parse(query)
  const names: string[] = []
  const cursor = tree.cursor()
  do {
    if (cursor.type.isError) throw new Error(`PromQL syntax error at ${cursor.from} in ${query}`)
    if (cursor.name === 'VectorSelector') {
      const selector = cursor.node
      const identifier = selector.getChild('Identifier')
      if (identifier === null) throw new Error(`a selector without a metric name in ${query}`)
      names.push(query.slice(identifier.from, identifier.to))
    }
  } while (cursor.next())
  return names
}

/** Every series name a Prometheus text exposition offers: its samples, and
 * for metrics with no sample yet (a labelled counter never incremented),
 * the names its TYPE line promises. */
function exportedNames (exposition: string): Set<string> {
  const names = new Set<string>()
  for (const line of exposition.split('\n')) {
    const type = /^# TYPE (\S+) (\w+)$/.exec(line)
    if (type !== null) {
      const [, name, kind] = type as unknown as [string, string, string]
      names.add(name)
      if (kind === 'histogram') for (const suffix of ['_bucket', '_sum', '_count']) names.add(name + suffix)
      if (kind === 'summary') for (const suffix of ['_sum', '_count']) names.add(name + suffix)
    } else if (line !== '' && !line.startsWith('#')) {
      names.add(/^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)?.[0] ?? line)
    }
  }
  return names
}

function queries (panels: Panel[]): Array<{ panel: string, expr: string }> {
  return panels.flatMap(panel => [
    ...(panel.targets ?? []).map(target => ({ panel: panel.title ?? '(untitled)', expr: target.expr })),
    ...queries(panel.panels ?? [])
  ])
}

t.test('the PromQL reader finds metric names and refuses what it cannot check', async t => {
  t.same(metricNames('sum by (le) (rate(a_bucket{job="$tts_job"}[$__rate_interval])) / on() group_left b'), ['a_bucket', 'b'])
  t.same(metricNames('histogram_quantile(0.9, sum(rate(x_bucket[5m]))) > bool 2'), ['x_bucket'])
  t.throws(() => metricNames('sum(rate(x[5m])'), /syntax error/)
  t.throws(() => metricNames('{__name__=~"chorus_.*"}'), /without a metric name/)
  t.throws(() => metricNames('rate(x[$__range_typo])'), /unknown Grafana variable/)
})

t.test('every panel query names only metrics a live TTS service or tool server exports', async t => {
  const service = await startTestService()
  t.teardown(service.stop)
  const spawner = await startReferenceSpawner(t)
  const metrics = new ToolMetrics()
  const tools = await startToolsHttpServer({
    config: { host: '127.0.0.1', port: 0, path: '/mcp', token: undefined, allowedOrigins: [], maxSessions: TOOLS_DEFAULTS.maxSessions, sessionsPerMinute: 1000 },
    context: { ...toolsContext({ spawnerPort: spawner.port }), metrics }
  })
  t.teardown(tools.close)

  // One call through the official client, so the tool counters have samples.
  const client = await connectHttp(t, `${tools.url}/mcp`)
  await client.callTool({ name: 'bot_list', arguments: {} })

  const ttsText = (await request(`${service.url}/metrics`)).body.toString()
  const toolsReply = await request(`${tools.url}/metrics`)
  t.equal(toolsReply.status, 200)
  t.match(toolsReply.headers.get('content-type'), /^text\/plain/)
  const toolsText = toolsReply.body.toString()
  t.match(toolsText, /^chorus_tool_calls_total\{tool="bot_list",outcome="ok"\} 1$/m, 'the call was counted')
  t.match(toolsText, /^chorus_tool_call_duration_seconds_count\{tool="bot_list"\} 1$/m)

  const exported = new Set([...exportedNames(ttsText), ...exportedNames(toolsText)])
  const all = queries(dashboard.panels)
  t.ok(all.length >= 20, `${all.length} queries`)
  for (const { panel, expr } of all) {
    const names = metricNames(expr)
    t.ok(names.length > 0, `${panel}: selects a metric`)
    for (const name of names) t.ok(exported.has(name), `${panel}: ${name} is exported`)
  }

  // The check is not vacuous: a panel naming a metric nobody exports fails it.
  t.notOk(exported.has(metricNames('rate(chorus_audio_second_total[5m])')[0] as string), 'a misspelt metric is missing')
})

t.test('the dashboard covers what operators asked for', async t => {
  const titles = queries(dashboard.panels).map(query => query.panel)
  for (const wanted of ['Audio seconds per second', 'Real-time factor', 'Queue depth and pending requests', 'Voices loaded and evictions',
    'Voice memory: budget and use', 'Phrase cache hit rate', 'HTTP responses by status', 'Tool calls by tool and outcome']) {
    t.ok(titles.includes(wanted), wanted)
  }
})
