/**
 * SWE-agent trajectories (`<instance_id>.traj`): `history[]` is the chat as sent to the model. Function
 * calling runs carry OpenAI `tool_calls` and answer them with `role: "tool"` items whose
 * `tool_call_ids` list holds one id (SWE-agent sends `tool_call_ids[0]`). Older runs only have text: the
 * command is the assistant's `action` (a fenced block after its `thought`) and its output the next user
 * message, so calls and results are rebuilt by position, as for mini-swe-agent.
 */
import path from 'node:path';
import { scenarioInvalid } from '../../core/errors.js';
import type { ScenarioFile, ScenarioFileMessage } from '../schema.js';
import { isRecord, jsonObject, requireString } from './json.js';
import { readText, readToolCalls, uniqueCallIds } from './openai.js';
import { fileStem } from './runs.js';
import { isSubmission } from './submission.js';
import type { Importer } from './types.js';

const FORMAT = 'swe-agent-traj';
/** SWE-agent 0.x run folders: `<model>__<data>__<config>__t-<temperature>__p-<top_p>__c-<cost>__install-<n>`. */
const RUN_FOLDER = /^(.+?)__.+__t-[\d.]+__p-[\d.]+__c-[\d.]+/;

export const sweAgentTraj: Importer = {
  format: FORMAT,
  description: 'SWE-agent trajectory (*.traj): history[] with tool_calls (tool results name tool_call_ids), or text actions in older runs',
  detect: (data) => isRecord(data) && Array.isArray(data.history) && Array.isArray(data.trajectory) && isRecord(data.info),
  async convert(data, file): Promise<ScenarioFile> {
    if (!isRecord(data) || !Array.isArray(data.history) || !isRecord(data.info)) throw scenarioInvalid(file, 'history: expected an array');
    const { info } = data;
    const id = fileStem(file, '.traj');
    const messages = uniqueCallIds(toMessages(data.history, file));
    return {
      ctxbench: 1,
      id,
      title: id,
      source: {
        format: FORMAT,
        agent: 'SWE-agent',
        file: path.basename(file),
        notes: typeof info.exit_status === 'string' ? `exit_status: ${info.exit_status}` : undefined,
      },
      model: { name: modelName(data, file) },
      // A .traj holds no test result (only info.exit_status), so no outcome.
      messages: dropSubmission(messages, info.submission),
    };
  },
};

function toMessages(history: readonly unknown[], file: string): ScenarioFileMessage[] {
  const out: ScenarioFileMessage[] = [];
  let pendingCall: string | undefined;
  let ordinal = 0;
  history.forEach((raw, i) => {
    const where = `history[${i}]`;
    if (!isRecord(raw)) throw scenarioInvalid(file, `${where}: expected an object`);
    const content = readText(raw.content, file, `${where}.content`);
    switch (raw.role) {
      case 'system':
        out.push({ role: 'system', content });
        break;
      case 'user':
        if (pendingCall) out.push({ role: 'tool', toolCallId: pendingCall, name: 'bash', content });
        else out.push({ role: 'user', content });
        pendingCall = undefined;
        break;
      case 'tool': {
        const ids = raw.tool_call_ids;
        // SWE-agent asserts one call per observation and sends tool_call_ids[0] as the tool_call_id.
        const toolCallId = Array.isArray(ids) ? ids[0] : undefined;
        out.push({ role: 'tool', toolCallId: requireString(toolCallId, file, `${where}.tool_call_ids[0]`), content });
        break;
      }
      case 'assistant': {
        // Ids come from the assistant's position, so the same file always gives the same ids.
        const callId = `call_${String(ordinal++).padStart(4, '0')}`;
        // Text-action runs record no tool_calls, or null (SWE-agent 1.x), or an empty list.
        if (raw.tool_calls !== undefined && raw.tool_calls !== null && !(Array.isArray(raw.tool_calls) && raw.tool_calls.length === 0)) {
          out.push({ role: 'assistant', content, toolCalls: readToolCalls(raw.tool_calls, file, `${where}.tool_calls`) });
          break;
        }
        const next = history[i + 1];
        const answered = next === undefined || (isRecord(next) && next.role === 'user');
        const action = typeof raw.action === 'string' ? raw.action.trim() : '';
        if (action !== '' && typeof raw.thought === 'string' && answered) {
          // The response is the thought then the action in a fenced block: the call carries the action.
          out.push({ role: 'assistant', content: raw.thought.trim(), toolCalls: [{ id: callId, name: 'bash', arguments: JSON.stringify({ command: action }) }] });
          pendingCall = callId;
        } else {
          out.push({ role: 'assistant', content, toolCalls: [] });
        }
        break;
      }
      default:
        throw scenarioInvalid(file, `${where}.role: expected system, user, assistant or tool`);
    }
  });
  return out;
}

/**
 * The result of the final `submit` is the patch (info.submission, then the shell state footer), recorded
 * after the run ended: the model never saw it, so it is left out, as for mini-swe-agent.
 */
function dropSubmission(messages: ScenarioFileMessage[], submission: unknown): ScenarioFileMessage[] {
  const last = messages.at(-1);
  return isSubmission(last?.content, submission) && (last?.role === 'tool' || last?.role === 'user') ? messages.slice(0, -1) : messages;
}

/** SWE-agent 1.x records the model in replay_config (an object or its JSON text); 0.x only in the run folder's name. */
function modelName(data: Record<string, unknown>, file: string): string {
  const config = jsonObject(data.replay_config);
  const agent = config && isRecord(config.agent) ? config.agent : {};
  const model = isRecord(agent.model) ? agent.model.name : undefined;
  if (typeof model === 'string' && model !== '') return model;
  return RUN_FOLDER.exec(path.basename(path.dirname(path.resolve(file))))?.[1] ?? 'unknown';
}
