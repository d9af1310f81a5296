// The tool server's Prometheus metrics: tool calls by tool and outcome, and
// how long each took (most of it is the spawner's answer). On a registry of
// the server's own, so several servers in one process (tests) do not collide.

import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client'

export class ToolMetrics {
  readonly registry = new Registry()
  readonly #calls: Counter<'tool' | 'outcome'>
  readonly #duration: Histogram<'tool'>

  constructor () {
    const registers = [this.registry]
    collectDefaultMetrics({ register: this.registry, prefix: 'chorus_tools_' })
    this.#calls = new Counter({
      name: 'chorus_tool_calls_total',
      help: 'MCP tools/call requests that reached a tool, by tool and outcome (ok, or failed: the spawner refused or failed)',
      labelNames: ['tool', 'outcome'],
      registers
    })
    this.#duration = new Histogram({
      name: 'chorus_tool_call_duration_seconds',
      help: 'Time to answer a tool call, the spawner\'s answer included',
      labelNames: ['tool'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers
    })
  }

  called (tool: string, ok: boolean, seconds: number): void {
    this.#calls.inc({ tool, outcome: ok ? 'ok' : 'failed' })
    this.#duration.observe({ tool }, seconds)
  }
}
