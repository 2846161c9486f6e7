/** The tool definitions a recorded request sent, in the shapes the importers meet. */
import { scenarioInvalid } from '../../core/errors.js';
import type { ScenarioFile } from '../schema.js';
import { isRecord, requireString } from './json.js';

type Tools = NonNullable<ScenarioFile['tools']>;

/**
 * A request's `tools` as the scenario format holds them: OpenAI's `{type: 'function', function: {name,
 * description, parameters}}` (litellm logs too) or Anthropic's `{name, description, input_schema}`. A
 * tool with no definition to read (OpenAI's custom tools, Anthropic's server tools) keeps its name.
 * Undefined when the request sent none.
 */
export function readTools(raw: unknown, file: string, where: string): Tools | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) throw scenarioInvalid(file, `${where}: expected a list of tool definitions`);
  if (raw.length === 0) return undefined;
  return raw.map((tool: unknown, i) => {
    const at = `${where}[${i}]`;
    if (!isRecord(tool)) throw scenarioInvalid(file, `${at}: expected an object`);
    const definition = isRecord(tool.function) ? tool.function : tool;
    const prefix = definition === tool ? at : `${at}.function`;
    const schema = definition.parameters ?? definition.input_schema;
    return {
      name: requireString(definition.name, file, `${prefix}.name`),
      ...(typeof definition.description === 'string' ? { description: definition.description } : {}),
      ...(isRecord(schema) ? { parameters: schema } : {}),
    };
  });
}
