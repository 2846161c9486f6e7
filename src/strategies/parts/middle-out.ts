/**
 * Middle-out selection (seed 004, after Goose's context_mgmt `filter_tool_responses`): which of n
 * items to take out first, from the middle outward, so the task at the start and the recent work at
 * the end stay longest. Shared by `progressive-removal` and Goose's summary request.
 */

/** Seed: `numToRemove = n * pct / 100` (integer division), at least 1 when pct > 0. */
export function removalCount(n: number, percent: number): number {
  if (n === 0 || percent === 0) return 0;
  return Math.max(1, Math.floor((n * percent) / 100));
}

/**
 * Positions 0..n-1 in the seed's middle-out order: middle-1, middle, middle-2, middle+1, ... (with
 * middle = floor(n/2)). The seed's loop skips a slot when the left side runs out (n odd); this order
 * goes on with the right side, so its first n entries are all n positions.
 */
export function middleOutOrder(n: number): number[] {
  const middle = Math.floor(n / 2);
  const order: number[] = [];
  for (let offset = 0; order.length < n; offset++) {
    if (middle - offset - 1 >= 0) order.push(middle - offset - 1);
    if (middle + offset < n) order.push(middle + offset);
  }
  return order;
}

/** The positions removed at `percent`, in removal order. */
export function middleOutSelection(n: number, percent: number): number[] {
  return middleOutOrder(n).slice(0, removalCount(n, percent));
}
