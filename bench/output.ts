// Writes a run's files: results.json, report.md, and for a sweep the charts.

import { mkdir, writeFile } from 'node:fs/promises'
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os'
import { join } from 'node:path'
import { latencyChart, throughputChart } from './charts.js'
import { sweepReport, targetsReport } from './report.js'
import type { BenchResults, MachineInfo } from './results.js'

export function machineInfo (): MachineInfo {
  return {
    cpus: availableParallelism(),
    cpuModel: cpus()[0]?.model ?? 'unknown',
    memoryBytes: totalmem(),
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    loadAverage: loadavg()
  }
}

export async function writeOutputs (outDir: string, results: BenchResults): Promise<string[]> {
  await mkdir(outDir, { recursive: true })
  const files: Array<[string, string]> = [['results.json', JSON.stringify(results, null, 2) + '\n']]
  if (results.kind === 'sweep') {
    files.push(['report.md', sweepReport(results)])
    files.push(['throughput.svg', await throughputChart(results)])
    files.push(['latency.svg', await latencyChart(results)])
  } else {
    files.push(['report.md', targetsReport(results)])
  }
  for (const [name, content] of files) await writeFile(join(outDir, name), content)
  return files.map(([name]) => join(outDir, name))
}
