/**
 * The shape of a scenario before any text is written: what each step does (calls, a status turn, the
 * final answer; one call or several; a user follow-up or not), at which steps facts are planted, and
 * at which later step each one is probed. Each part has its own random stream.
 */
import type { Probe } from '../schema.js';
import { makeFact, type Fact } from './facts.js';
import type { ResolvedGenerateOptions } from './options.js';
import type { Rng } from './random.js';
import type { World } from './world.js';

export interface StepPlan {
  readonly kind: 'calls' | 'status' | 'final';
  readonly calls: number;
  readonly followUp: boolean;
}

/** A fact planted at a step: `index` numbers its probe id, `mention` has the next assistant turn repeat it. */
export interface Plant {
  readonly fact: Fact;
  readonly index: number;
  readonly mention: boolean;
}

/** Step shapes: the first step explores, the last answers; follow-ups and parallel calls in between. */
export function planSteps(plan: Rng, o: ResolvedGenerateOptions): StepPlan[] {
  const steps: StepPlan[] = [];
  for (let i = 0; i < o.steps; i++) {
    if (i === o.steps - 1) steps.push({ kind: 'final', calls: 0, followUp: false });
    else if (i > 0 && plan.chance(o.followUpShare)) steps.push({ kind: plan.chance(0.5) ? 'status' : 'calls', calls: 1, followUp: true });
    else steps.push({ kind: 'calls', calls: i > 0 && plan.chance(o.parallelShare) ? plan.int(2, 4) : 1, followUp: false });
  }
  return steps;
}

/**
 * Facts: planted at distinct tool-calling steps (keyed by step), each probed 2 or more steps later
 * (log-uniform gap); the probes come sorted by step.
 */
export function plantFacts(factRng: Rng, world: World, steps: readonly StepPlan[], o: ResolvedGenerateOptions): { plants: Map<number, Plant>; probes: Probe[] } {
  const eligible = steps.flatMap((s, i) => (s.kind === 'calls' && i >= 1 && i <= o.steps - 3 ? [i] : []));
  const factCount = Math.min(eligible.length, Math.round((o.factDensity * o.steps) / 100));
  const used = { answers: new Set<string>(), questions: new Set<string>() };
  const plants = new Map<number, Plant>();
  factRng.sample(eligible, factCount).forEach((step, index) => {
    plants.set(step, { fact: makeFact(factRng, world, used), index, mention: factRng.chance(0.4) });
  });
  const probes = [...plants.entries()].map(([step, { fact, index }]) => {
    const gap = Math.min(o.steps - 1 - step, Math.round(factRng.logUniform(2, o.steps - 1 - step)));
    return { id: `fact-${String(index + 1).padStart(3, '0')}-${fact.kind}`, step: step + Math.max(2, gap), question: fact.question, answer: fact.answer };
  });
  return { plants, probes: probes.sort((a, b) => a.step - b.step || a.id.localeCompare(b.id)) };
}
