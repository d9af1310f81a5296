// Whose share of the inference slots a task counts in: all the scheduler
// needs to know of who asked. Who a request speaks for (a key, a client
// connection) is decided by admission (src/access/tenant.ts), which names
// the share; the pool only queues by it.

export interface Share {
  /** Tasks of one name wait in one fair-queuing place. */
  name: string
  /** Relative share of inference slots when several shares wait (default 1). */
  weight: number
  /** The name its grants are counted under (ScheduleCounts.granted), when
   * many shares count as one: the counters stay as few as the names
   * admission counts by, however many shares come and go. Default `name`. */
  countedAs?: string
}

/** The share of tasks that name none (warm-up, a command's own speech) and
 * of every task in the first-come-first-served mode. */
export const COMMON_SHARE: Share = Object.freeze({ name: 'anonymous', weight: 1 })
