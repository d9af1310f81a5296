// Writes a run's files: results.json, report.md, and for a sweep the charts;
// and what every results.json starts with (the schema, the run, the machine).

import { mkdir, writeFile } from 'node:fs/promises'
import { availableParallelism, cpus, loadavg, totalmem } from 'node:os'
import { join } from 'node:path'
import { latencyChart, throughputChart } from './charts.js'
import { sweepReport, targetsReport } from './report.js'
import { RESULTS_SCHEMA, type BenchResults, type MachineInfo, type ResultsHeader } from './results.js'

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

/** The head of a sweep's, the targets' or the fleet's results, finished now, in the order results.json shows it. */
export function resultsHeader<K extends string> (kind: K, label: string, startedAt: string): ResultsHeader & { kind: K } {
  return { schema: RESULTS_SCHEMA, kind, label, startedAt, finishedAt: new Date().toISOString(), machine: machineInfo() }
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
