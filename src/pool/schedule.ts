// Which waiting inference runs next: the one rule shared by the process-wide
// inference gate and every voice pool's own queue. Pure: time comes from the
// answers' clocks (schedule-clock.ts), which take an injected `now`.
//
// 'deadline' (the default):
// - Between tenants, weighted fair queuing by start time: each tenant has a
//   virtual time that grows by 1 / weight with every slot it is granted, and
//   the waiting tenant with the least goes next. A tenant that had nothing
//   waiting starts at the virtual time of the last grant, so being idle banks
//   no credit. So one bot with 32 streams gets one share, not 32, while four
//   bots with one stream each wait; when only it waits, it gets every slot.
// - Within a tenant, earliest deadline first: a stream's next audio is due
//   when its listener runs out of what was sent; a new answer's first audio
//   is due at its arrival, which puts it ahead of every stream with audio
//   still buffered (it is not starved) but behind one already running dry.
//   Except that a reply being heard that runs dry within PROTECT_LEAD_MS is
//   urgent and goes ahead of new answers (see there).
// - A burst: a tenant whose next task is a stream's audio not yet due
//   (its listener still has audio buffered, and it is not urgent) waits
//   while another tenant has a task that is due, whatever their virtual
//   times: every new answer's first audio comes before anyone's audio that
//   is not needed yet. Such a pick is not charged as the tenant's turn out
//   of order: shares count slots granted, as always.
// - Whole answers, among themselves, by least attained service
//   (served-time.ts): the request that has had the least inference time
//   goes next, so a short one is not stuck behind long ones; equal service
//   goes in task order (the oldest first). Against streams, that whole
//   answer competes by a deadline too: its arrival plus the audio made for
//   it so far, as if a listener had started hearing it when it arrived. So a
//   whole answer advances at least at real time and a stream with seconds
//   buffered waits for it, while a stream about to run dry goes first.
// - Ties go to task order.
//
// 'fifo': today's first come first served by task order, tenants ignored,
// for comparison (TTS_SCHEDULER=fifo).

import { COMMON_SHARE, type Share } from './share.js'
import type { ServedTime } from './served-time.js'
import { before, type TaskOrder } from './task-order.js'

export type SchedulerMode = 'deadline' | 'fifo'
export const SCHEDULER_MODES: readonly SchedulerMode[] = ['deadline', 'fifo']

/** When an answer's next audio is due, in its clock's milliseconds. */
export interface Due {
  readonly streamed: boolean
  deadline: () => number
  /** How long until it is due, now (0 when due or late); streams only. */
  lead?: () => number
  /** Audio ahead of it in its listener's queue not yet handed on, in ms. */
  aheadMs?: () => number
  /** Streams: goes ahead of new answers' first audio (see PROTECT_LEAD_MS). */
  urgent?: () => boolean
}

/**
 * A stream whose listener is already hearing its reply and will run dry
 * within this long goes ahead of every new answer's first audio, whatever
 * their deadlines. A new answer is due at its arrival, so by deadline alone
 * a burst of new answers (bots that start talking together) took every slot
 * in turn while the streams that had just started ran dry: a gap is heard,
 * a later start is not. A new answer that has waited NEW_ANSWER_WAIT_MS for
 * its first audio is urgent too, so none waits without bound.
 */
export const PROTECT_LEAD_MS = 500
export const NEW_ANSWER_WAIT_MS = 1500

/**
 * A stream's task whose audio is not due for this long is background work:
 * it never takes the last free place of a queue that has two or more, so a
 * task due now always finds a worker and a slot instead of waiting out a
 * long chunk that nobody will hear for seconds (the next sentence of a
 * reply, decoded whole). As its time comes it stops being background.
 */
export const BACKGROUND_LEAD_MS = 1000

/** 0 when `ticket`'s task may take one of `limit` places while `running`
 * are taken; else the ms until it may (its lead falls under BACKGROUND_LEAD_MS). */
export function startsInMs (ticket: Ticket | undefined, running: number, limit: number, mode: SchedulerMode): number {
  if (mode !== 'deadline' || ticket === undefined || !ticket.due.streamed || ticket.due.lead === undefined) return 0
  if (limit < 2 || running + 1 < limit) return 0
  const lead = ticket.due.lead()
  return lead >= BACKGROUND_LEAD_MS ? lead - BACKGROUND_LEAD_MS + 1 : 0
}

/** What the scheduler knows of one task. */
export interface Ticket {
  order: TaskOrder
  /** Whose share of the slots the task counts in. */
  tenant: Share
  due: Due
  /** The request's inference time so far: whole answers go by least attained service. */
  served?: ServedTime
}

/** The counters tests and metrics read. */
export interface ScheduleCounts {
  /** Grants per share (by its countedAs name) since the schedule was made. */
  readonly granted: ReadonlyMap<string, number>
  /** Grants that went to a stream's task, and to a whole answer's. */
  readonly streamGrants: number
  readonly wholeGrants: number
}

interface TenantQueue {
  name: string
  /** The name its grants are counted under. */
  countedAs: string
  weight: number
  /** Start-time fair queuing's tag: slots granted, each 1 / weight. */
  virtual: number
  streams: Array<Entry<unknown>>
  wholes: Array<Entry<unknown>>
}

interface Entry<T> {
  ticket: Ticket
  value: T
  /** Arrival among entries without a ticket. */
  seq: number
}

/** Tasks without a ticket (warm-up, probes) go after every ticketed task, in arrival order. */
export class Schedule<T> {
  private readonly tenants = new Map<string, TenantQueue>()
  private readonly untracked: Array<Entry<T>> = []
  /** Entries by value, so remove() finds them. */
  private readonly entries = new Map<T, { entry: Entry<T>, queue: Array<Entry<unknown>> | Array<Entry<T>> }>()
  private virtual = 0
  private seq = 0
  private readonly grantedBy = new Map<string, number>()
  private streamCount = 0
  private wholeCount = 0

  constructor (readonly mode: SchedulerMode) {}

  get size (): number {
    return this.entries.size
  }

  get counts (): ScheduleCounts {
    return { granted: this.grantedBy, streamGrants: this.streamCount, wholeGrants: this.wholeCount }
  }

  add (value: T, ticket: Ticket | undefined): void {
    const entry: Entry<T> = { ticket: ticket ?? UNTRACKED, value, seq: this.seq++ }
    if (ticket === undefined) {
      this.untracked.push(entry)
      this.entries.set(value, { entry, queue: this.untracked })
      return
    }
    const tenant = this.tenantOf(ticket)
    const queue = this.mode === 'deadline' && ticket.due.streamed ? tenant.streams : tenant.wholes
    // Kept in task order: the whole answers' order, and the tie-break for streams.
    let at = queue.findIndex(other => before(ticket.order, other.ticket.order))
    if (at < 0) at = queue.length
    queue.splice(at, 0, entry)
    this.entries.set(value, { entry, queue })
  }

  /** Counts a slot granted without waiting (nothing was queued), so a
   * tenant's share covers every slot it held. */
  charge (ticket: Ticket): void {
    this.granted(this.tenantOf(ticket), ticket)
    this.forgetIdle()
  }

  /** Takes a waiting value out (its request was aborted); false if it was not here. */
  remove (value: T): boolean {
    const found = this.entries.get(value)
    if (found === undefined) return false
    this.entries.delete(value)
    const queue = found.queue as Array<Entry<T>>
    queue.splice(queue.indexOf(found.entry), 1)
    this.forgetIdle()
    return true
  }

  /** The ticket of the value take() would give, left in place; undefined when empty. */
  peek (): Ticket | undefined {
    return this.pick()?.entry.ticket
  }

  /** The value to run next, taken out of the schedule; undefined when empty. */
  take (): T | undefined {
    const picked = this.pick()
    if (picked === undefined) return undefined
    const { entry, queue, tenant } = picked
    queue.splice(queue.indexOf(entry), 1)
    this.entries.delete(entry.value)
    if (tenant !== undefined) this.granted(tenant, entry.ticket)
    this.forgetIdle()
    return entry.value
  }

  private tenantOf (ticket: Ticket): TenantQueue {
    const name = this.mode === 'fifo' ? COMMON_SHARE.name : ticket.tenant.name
    let tenant = this.tenants.get(name)
    if (tenant === undefined) {
      tenant = { name, countedAs: this.mode === 'fifo' ? name : ticket.tenant.countedAs ?? name, weight: 1, virtual: this.virtual, streams: [], wholes: [] }
      this.tenants.set(name, tenant)
    } else if (tenant.streams.length + tenant.wholes.length === 0) {
      // Back after a pause: what it used still counts, what it did not use is gone.
      tenant.virtual = Math.max(tenant.virtual, this.virtual)
    }
    tenant.weight = this.mode === 'fifo' ? 1 : validWeight(ticket.tenant.weight)
    return tenant
  }

  private granted (tenant: TenantQueue, ticket: Ticket): void {
    this.virtual = tenant.virtual
    tenant.virtual += 1 / tenant.weight
    this.grantedBy.set(tenant.countedAs, (this.grantedBy.get(tenant.countedAs) ?? 0) + 1)
    if (ticket.due.streamed) this.streamCount++
    else this.wholeCount++
  }

  private pick (): { entry: Entry<T>, queue: Array<Entry<T>>, tenant?: TenantQueue } | undefined {
    let best: { tenant: TenantQueue, entry: Entry<unknown>, pressing: boolean } | undefined
    for (const tenant of this.tenants.values()) {
      if (tenant.streams.length + tenant.wholes.length === 0) continue
      const entry = this.first(tenant)
      const pressing = this.mode === 'fifo' || !notYetDue(entry.ticket.due)
      if (best === undefined || (pressing && !best.pressing) || (pressing === best.pressing && earlierTurn(tenant, best.tenant))) best = { tenant, entry, pressing }
    }
    if (best === undefined) {
      const entry = this.untracked[0]
      return entry === undefined ? undefined : { entry, queue: this.untracked }
    }
    const { tenant, entry } = best
    const queue = (tenant.streams.includes(entry) ? tenant.streams : tenant.wholes) as Array<Entry<T>>
    return { entry: entry as Entry<T>, queue, tenant }
  }

  /** A tenant's next task: among its streams the urgent ones first, then
   * the earliest deadline; that against its least served whole answer's
   * task (the oldest in fifo) by deadline. */
  private first (tenant: TenantQueue): Entry<unknown> {
    let stream: Entry<unknown> | undefined
    let streamUrgent = false
    let streamDue = 0
    for (const entry of tenant.streams) {
      const urgent = entry.ticket.due.urgent?.() ?? false
      const due = entry.ticket.due.deadline()
      if (stream === undefined || (urgent && !streamUrgent) ||
        (urgent === streamUrgent && (due < streamDue || (due === streamDue && before(entry.ticket.order, stream.ticket.order))))) {
        stream = entry
        streamUrgent = urgent
        streamDue = due
      }
    }
    const whole = this.mode === 'fifo' ? tenant.wholes[0] : leastServed(tenant.wholes)
    if (stream === undefined) return whole as Entry<unknown>
    if (whole === undefined || this.mode === 'fifo') return stream
    const wholeDue = whole.ticket.due.deadline()
    return streamDue < wholeDue || (streamDue === wholeDue && before(stream.ticket.order, whole.ticket.order)) ? stream : whole
  }

  /** A tenant with nothing waiting and no use beyond the others' is dropped
   * (it would start at the current virtual time anyway): the map holds only
   * tenants that wait or are ahead of their share. */
  private forgetIdle (): void {
    for (const [name, tenant] of this.tenants) {
      if (tenant.streams.length + tenant.wholes.length === 0 && tenant.virtual <= this.virtual) this.tenants.delete(name)
    }
  }
}

/** A stream's audio its listener will not need yet: it still has some buffered, and it is not urgent. */
function notYetDue (due: Due): boolean {
  return due.streamed && due.lead !== undefined && !(due.urgent?.() ?? false) && due.lead() > 0
}

/** Start-time fair queuing's order; equal virtual times: the name decides,
 * so the order does not depend on the map's. */
function earlierTurn (a: TenantQueue, b: TenantQueue): boolean {
  return a.virtual < b.virtual || (a.virtual === b.virtual && a.name < b.name)
}

/** The whole answer's task whose request has been served the least; the
 * queue is in task order, so equal service goes to the oldest. */
function leastServed (wholes: Array<Entry<unknown>>): Entry<unknown> | undefined {
  let best: Entry<unknown> | undefined
  let bestMs = 0
  for (const entry of wholes) {
    const ms = entry.ticket.served?.servedMs ?? 0
    if (best === undefined || ms < bestMs) {
      best = entry
      bestMs = ms
    }
  }
  return best
}

const UNTRACKED: Ticket = Object.freeze({ order: [Number.MAX_SAFE_INTEGER, 0, 0] as const, tenant: COMMON_SHARE, due: { streamed: false, deadline: () => Number.POSITIVE_INFINITY } })

/** Weights come checked from the keys file; this keeps a bad one from breaking the order. */
function validWeight (weight: number): number {
  return Number.isFinite(weight) && weight > 0 ? weight : 1
}
