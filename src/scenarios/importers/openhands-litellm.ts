/**
 * OpenHands litellm completion logs (`llm_completions/<instance>/<model>-<ts>.json`, one file per LLM
 * call). Without condensation each call's messages extend the previous call's, so the last file of an
 * instance is the whole trajectory: its `messages` plus the answer in `response`.
 */
import path from 'node:path';
import { scenarioInvalid } from '../../core/errors.js';
import type { ScenarioFile, ScenarioFileMessage } from '../schema.js';
import { isRecord, recordedUsage, requireString } from './json.js';
import { readText } from './openai.js';
import { readSidecar } from './sidecar.js';
import { readTools } from './tools.js';
import type { Importer } from './types.js';

const FORMAT = 'openhands-litellm';

export const openhandsLitellm: Importer = {
  format: FORMAT,
  description: 'OpenHands litellm completion log (llm_completions/<instance>/*.json): the last call holds the whole trajectory',
  detect: (data) => isRecord(data) && Array.isArray(data.messages) && isRecord(data.response) && Array.isArray(data.response.choices),
  async convert(data, file): Promise<ScenarioFile> {
    if (!isRecord(data) || !Array.isArray(data.messages) || !isRecord(data.response)) {
      throw scenarioInvalid(file, 'expected messages and a response');
    }
    const { response } = data;
    const choice = Array.isArray(response.choices) ? response.choices[0] : undefined;
    const final = readMessage(isRecord(choice) ? choice.message : undefined, file, 'response.choices[0].message');
    if (final.role !== 'assistant') throw scenarioInvalid(file, 'response.choices[0].message.role: expected assistant');
    const kwargs = isRecord(data.kwargs) ? data.kwargs : {};
    // The instance id is only in the path: llm_completions/<instance_id>/<file>.
    const id = path.basename(path.dirname(path.resolve(file)));
    const labels = await readSidecar(file, 'labels.derived.json');
    const outcome = isRecord(labels) ? labels[id] : undefined;
    // litellm passes the tool definitions (sent with every call) in kwargs.
    const tools = readTools(kwargs.tools, file, 'kwargs.tools');
    return {
      ctxbench: 1,
      id,
      title: id,
      source: { format: FORMAT, agent: 'OpenHands', file: path.basename(file) },
      model: { name: requireString(response.model ?? kwargs.model, file, 'response.model') },
      outcome: typeof outcome === 'string' ? outcome : undefined,
      ...(tools ? { tools } : {}),
      messages: [
        ...data.messages.map((m, i) => readMessage(m, file, `messages[${i}]`)),
        // Only the final call's usage is in the file: earlier turns' calls were logged in other files.
        { ...final, usage: recordedUsage(response.usage) },
      ],
    };
  },
};

function readMessage(raw: unknown, file: string, where: string): ScenarioFileMessage {
  if (!isRecord(raw)) throw scenarioInvalid(file, `${where}: expected an object`);
  // A string, a list of parts (Anthropic caching needs parts; `cache_control` is dropped), or absent.
  const content = readText(raw.content, file, `${where}.content`);
  switch (raw.role) {
    case 'system':
    case 'user':
      return { role: raw.role, content };
    case 'assistant': {
      const calls = Array.isArray(raw.tool_calls) ? raw.tool_calls : [];
      const toolCalls = calls.map((call: unknown, i) => {
        const at = `${where}.tool_calls[${i}]`;
        const fn = isRecord(call) && isRecord(call.function) ? call.function : {};
        return {
          id: requireString(isRecord(call) ? call.id : undefined, file, `${at}.id`),
          name: requireString(fn.name, file, `${at}.function.name`),
          arguments: requireString(fn.arguments, file, `${at}.function.arguments`),
        };
      });
      return { role: 'assistant', content, toolCalls };
    }
    case 'tool':
      return {
        role: 'tool',
        toolCallId: requireString(raw.tool_call_id, file, `${where}.tool_call_id`),
        name: requireString(raw.name, file, `${where}.name`),
        content,
      };
    default:
      throw scenarioInvalid(file, `${where}.role: expected system, user, assistant or tool`);
  }
}
