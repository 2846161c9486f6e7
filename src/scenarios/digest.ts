/**
 * A scenario's identity by content: what a matrix fingerprint and a run record hash, so a changed task
 * is told apart from a moved file.
 */
import { createHash } from 'node:crypto';
import { writeStableJson } from '../core/stable-json.js';
import type { Scenario } from './scenario.js';

/** Scenarios are frozen (parseScenario): a digest holds for the object's life, and the fingerprint and the job plan share it. */
const digests = new WeakMap<Scenario, string>();

/**
 * The sha256 (hex) of the scenario's stable JSON without `file`: the same wherever the file lives.
 * Hashed as it is written: a 10,000-step scenario's text (tens of MB) is never one string.
 */
export function scenarioDigest(scenario: Scenario): string {
  let digest = digests.get(scenario);
  if (digest === undefined) {
    const { file: _where, ...content } = scenario;
    const hash = createHash('sha256');
    writeStableJson(content, (piece) => hash.update(piece, 'utf8'));
    digests.set(scenario, (digest = hash.digest('hex')));
  }
  return digest;
}
