/** The tool definitions a recorded request sent, in the shapes the importers meet (core/tools.ts readToolDefinitions). */
import { scenarioInvalid } from '../../core/errors.js';
import { readToolDefinitions } from '../../core/tools.js';
import type { ScenarioFile } from '../schema.js';

type Tools = NonNullable<ScenarioFile['tools']>;

/** A request's `tools` as the scenario format holds them; undefined when the request sent none. */
export const readTools = (raw: unknown, file: string, where: string): Tools | undefined => readToolDefinitions(raw, where, (problem) => scenarioInvalid(file, problem));
