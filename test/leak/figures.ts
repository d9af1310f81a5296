// What every leak and limit check shares: it repeats its measurement,
// judges it against a baseline measured in the same run (so a loaded or
// slow machine moves both sides), and prints every figure it judged on.

import { readFileSync, writeFileSync } from 'node:fs'
import type { Test } from 'tap'

export const MB = 1e6

/** How many times each measurement is taken. */
export const ROUNDS = 3

export const least = (values: number[]): number => Math.min(...values)
export const most = (values: number[]): number => Math.max(...values)
export function median (values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}

/** Prints one row of figures, as `label: a, b, c unit`, in the test's output. */
export function figures (t: Test, label: string, values: number[], unit: 'MB' | 'ms' | '%' | '' = ''): void {
  const scale = unit === 'MB' ? MB : unit === '%' ? 0.01 : 1
  const shown = values.map(v => (v / scale).toFixed(unit === 'ms' || unit === '%' ? 0 : 2)).join(', ')
  t.comment(`${label}: ${shown}${unit === '' ? '' : ` ${unit}`}`)
}

/** Runs `measure` `rounds` times in turn and returns its readings. */
export async function repeat (rounds: number, measure: (round: number) => Promise<number>): Promise<number[]> {
  const readings: number[] = []
  for (let round = 0; round < rounds; round++) readings.push(await measure(round))
  return readings
}

/** Resident set size now (Linux). */
export function residentBytes (): number {
  return statusBytes('VmRSS')
}

/** The largest resident set size since resetPeakResident() (Linux): no
 * sampling, so no peak falls between two samples. */
export function peakResidentBytes (): number {
  return statusBytes('VmHWM')
}

/** Starts a new peak (writing 5 to clear_refs, Linux 4.0 and later). */
export function resetPeakResident (): void {
  writeFileSync('/proc/self/clear_refs', '5')
}

function statusBytes (field: string): number {
  const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB$`, 'm').exec(readFileSync('/proc/self/status', 'utf8'))
  if (match === null) throw new Error(`no ${field} in /proc/self/status`)
  return Number(match[1]) * 1024
}
