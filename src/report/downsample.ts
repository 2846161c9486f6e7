/**
 * Which points of a token curve to draw. A 2,000-step curve on a 1,000-pixel plot is drawn no better
 * with every step than with a few hundred, and every step of 600 runs would make the page grow with
 * the runs' length. So a long series keeps what a reader looks for (its first and last request, its
 * peak, both sides of every threshold crossing, the steps where the strategy acted) and, between
 * those, the lowest and highest request of each stretch of steps, so no rise or drop disappears.
 * The exact numbers stay in the database and the exports.
 */

export interface DownsampleOptions {
  /** Points to keep at most, unless the must-keep points alone are more. */
  readonly max: number;
  /** Threshold values: the points on both sides of a crossing are kept. */
  readonly levels: readonly number[];
  /** Indices that must stay (the steps of the series' markers). */
  readonly keep: ReadonlySet<number>;
}

/**
 * Points per curve before must-keep ones: 80 stretches' low and high, enough for a chart's width to
 * show every rise and compaction, and below the length of a long run, so the page grows with the
 * runs rather than with their steps.
 */
export const CURVE_POINTS = 160;

/**
 * The indices of `y` to draw, ascending: every non-null one when there are at most `max`; else the
 * must-keep ones plus, as the budget allows, each bucket's lowest and highest point. Never more than
 * max(`max`, must-keep points).
 */
export function downsample(y: readonly (number | null)[], { max, levels, keep }: DownsampleOptions): number[] {
  const defined: number[] = [];
  y.forEach((v, i) => {
    if (v !== null) defined.push(i);
  });
  if (defined.length <= max) return defined;

  const must = new Set<number>([defined[0]!, defined.at(-1)!]);
  let peak = defined[0]!;
  for (const i of defined) if (y[i]! > y[peak]!) peak = i;
  must.add(peak);
  for (const i of defined) if (keep.has(i)) must.add(i);
  for (let k = 1; k < defined.length; k++) {
    const [a, b] = [defined[k - 1]!, defined[k]!];
    if (levels.some((level) => y[a]! < level !== y[b]! < level)) must.add(a).add(b);
  }

  // Two points per bucket: its lowest and its highest, in step order.
  const buckets = Math.floor((max - must.size) / 2);
  const chosen = new Set(must);
  for (let b = 0; b < buckets; b++) {
    const from = Math.floor((b * defined.length) / buckets);
    const to = Math.floor(((b + 1) * defined.length) / buckets);
    let [lo, hi] = [defined[from]!, defined[from]!];
    for (let k = from; k < to; k++) {
      const i = defined[k]!;
      if (y[i]! < y[lo]!) lo = i;
      if (y[i]! > y[hi]!) hi = i;
    }
    chosen.add(lo).add(hi);
  }
  return [...chosen].sort((a, b) => a - b);
}
