/**
 * A scenario's identity by content: what a matrix fingerprint and a run record hash, so a changed task
 * is told apart from a moved file.
 */
import { createHash } from 'node:crypto';
import { stableJson } from '../core/stable-json.js';
import type { Scenario } from './scenario.js';

/** The sha256 (hex) of the scenario's stable JSON without `file`: the same wherever the file lives. */
export const scenarioDigest = ({ file: _where, ...content }: Scenario): string => createHash('sha256').update(stableJson(content), 'utf8').digest('hex');
