/**
 * Which job an idle worker thread takes next. A worker keeps to one scenario while it has jobs left:
 * its token counter has counted that scenario's messages already (the per-message cache), and it holds
 * one scenario at a time. Then it takes the first scenario no worker is on, in matrix order; when every
 * scenario left has a worker, it helps the one with the most jobs left, so no thread idles at the end.
 *
 * Where a job runs never changes its result (each run is independent): this only decides speed.
 */
export interface Scheduler<J> {
  /** The next job for `worker`, or undefined when every job has been handed out. */
  next(worker: number): J | undefined;
}

export function createScheduler<J extends { readonly scenario: number }>(jobs: readonly J[]): Scheduler<J> {
  const queues = new Map<number, J[]>(); // by scenario, in matrix order; emptied queues are deleted
  for (const job of jobs) {
    const queue = queues.get(job.scenario);
    if (queue) queue.push(job);
    else queues.set(job.scenario, [job]);
  }
  const on = new Map<number, number>(); // worker -> the scenario it works on

  const take = (worker: number, scenario: number): J => {
    const queue = queues.get(scenario)!;
    const job = queue.shift()!;
    if (queue.length === 0) queues.delete(scenario);
    on.set(worker, scenario);
    return job;
  };

  return {
    next(worker) {
      const own = on.get(worker);
      if (own !== undefined && queues.has(own)) return take(worker, own);
      const taken = new Set(on.values());
      let busiest: number | undefined;
      for (const [scenario, queue] of queues) {
        if (!taken.has(scenario)) return take(worker, scenario);
        if (busiest === undefined || queue.length > queues.get(busiest)!.length) busiest = scenario;
      }
      if (busiest !== undefined) return take(worker, busiest);
      on.delete(worker);
      return undefined;
    },
  };
}
