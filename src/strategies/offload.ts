/**
 * `offload`: seed 002's reversible tiers alone (tiers 1-2, see offload-tiers.ts).
 *
 * - Tier 1: a tool result over 20,000 tokens goes to the offload store at once, a 10-line preview and
 *   a read-back instruction in its place.
 * - Tier 2: above 85% of the window, the content written by file-write tool calls and long file-write
 *   results are replaced by pointers to their originals in the store.
 * `offloadStyle=deepagents` runs deepagents' eviction instead (parts/deepagents-eviction.ts), tier 1 only.
 * Nothing is ever lost: every pointer resolves to exactly the text it replaced. There is no lossy
 * last resort here (that is `summarization`, tier 3), so a context that the reversible tiers cannot
 * bring under the window overflows, as the seed's tiers 1-2 alone would.
 */
import { defineStrategy } from '../core/strategy.js';
import { applyOffloadTiers, OFFLOAD_PARAMS, tierMemory } from './parts/offload-tiers.js';

const NAME = 'offload';

export const offloadStrategy = defineStrategy({
  name: NAME,
  seed: '002',
  summary: 'Seed 002 tiers 1-2: offload tool results over 20k tokens with a preview; above 85% replace file-write contents with pointers (reversible).',
  params: OFFLOAD_PARAMS,
  thresholds: (p) => (p.offloadStyle === 'valis' ? [{ label: 'compact (tier 2)', fraction: p.compactionThreshold }] : []),
  create(p) {
    const memory = tierMemory();
    return {
      beforeRequest(input) {
        const { messages, events } = applyOffloadTiers(input, NAME, p, memory);
        return { messages, events };
      },
    };
  },
});
