// Which loaded voices must go so another can load: the least recently used
// idle ones, until the newcomer fits both the memory budget and the cap on
// loaded voices. Busy voices (work queued or running) and voices still
// loading are never chosen; when evicting every idle voice would not make
// room, none is evicted and the newcomer waits for work to finish.

export interface Occupant {
  name: string
  /** The voice's memory figure, or its estimate while it loads. */
  bytes: number
  lastUsed: number
  /** Loaded, with no request holding it. */
  idle: boolean
}

export interface Capacity {
  maxVoices: number
  budgetBytes: number
}

export type EvictionReason = 'memory' | 'count' | 'removed' | 'changed' | 'shutdown'

export type RoomPlan =
  | { kind: 'fits' }
  | { kind: 'evict', victims: Array<{ name: string, reason: 'memory' | 'count' }> }
  | { kind: 'wait' }

/** Whether a voice of `need` bytes may join `count` voices holding `bytes`.
 * A voice alone always may, even beyond the budget: otherwise it could never serve. */
function fits (count: number, bytes: number, need: number, capacity: Capacity): boolean {
  return count === 0 || (count + 1 <= capacity.maxVoices && bytes + need <= capacity.budgetBytes)
}

/**
 * `table`: the voices in service (loaded or loading). `retiring`: pools out of
 * service still closing; they count until closed, so their room comes back
 * only then, and the plan never evicts more because of them.
 */
export function planRoom (table: readonly Occupant[], retiring: { count: number, bytes: number }, need: number, capacity: Capacity): RoomPlan {
  const tableBytes = table.reduce((sum, voice) => sum + voice.bytes, 0)
  if (fits(table.length + retiring.count, tableBytes + retiring.bytes, need, capacity)) return { kind: 'fits' }
  const idle = table.filter(voice => voice.idle).sort((a, b) => a.lastUsed - b.lastUsed)
  let count = table.length
  let bytes = tableBytes
  const victims: Array<{ name: string, reason: 'memory' | 'count' }> = []
  while (!fits(count, bytes, need, capacity)) {
    const next = idle.shift()
    if (next === undefined) return { kind: 'wait' }
    victims.push({ name: next.name, reason: count + 1 > capacity.maxVoices ? 'count' : 'memory' })
    count--
    bytes -= next.bytes
  }
  // Room is only waiting for retiring pools to close.
  return victims.length === 0 ? { kind: 'wait' } : { kind: 'evict', victims }
}

/**
 * After a load: a voice counted by its estimate may report more. The least
 * recently used idle voices go until the voices in service fit the budget
 * again (retiring pools are already on their way out), or none is idle.
 */
export function overBudget (table: readonly Occupant[], budgetBytes: number): string[] {
  let bytes = table.reduce((sum, voice) => sum + voice.bytes, 0)
  const idle = table.filter(voice => voice.idle).sort((a, b) => a.lastUsed - b.lastUsed)
  const victims: string[] = []
  for (const voice of idle) {
    if (bytes <= budgetBytes || victims.length === table.length - 1) break
    victims.push(voice.name)
    bytes -= voice.bytes
  }
  return victims
}
