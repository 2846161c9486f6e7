/**
 * OpenHands event streams: the `history[]` of an evaluation's `output.jsonl` line (one run per line,
 * `{instance_id, history, metadata, ...}`), or a saved trajectory (the bare list of events). Events are
 * actions and observations; an observation names its action by `cause`, and both carry
 * `tool_call_metadata` {tool_call_id, function_name, model_response}. The chat is rebuilt as OpenHands'
 * ConversationMemory builds it for the model: the assistant turn is the raw model response (all its
 * calls, with its usage), sent once every call has its observation, followed by the results in call
 * order.
 */
import path from 'node:path';
import { scenarioInvalid } from '../../core/errors.js';
import type { ScenarioFile, ScenarioFileMessage } from '../schema.js';
import { isRecord, jsonObject, recordedUsage, requireString } from './json.js';
import { readText, readToolCalls, uniqueCallIds } from './openai.js';
import { fileStem, mostly, runId, runsImporter, safeId } from './runs.js';
import type { Importer } from './types.js';

const FORMAT = 'openhands-events';
/** OpenHands' truncate_content: observations over llm_config.max_message_chars keep their head and tail halves. */
const TRUNCATED = '\n[... Observation truncated due to length ...]\n';
const ERROR_SUFFIX = '\n[Error occurred in processing last action]';

type Event = Record<string, unknown>;
type Assistant = Extract<ScenarioFileMessage, { role: 'assistant' }>;
type Tool = Extract<ScenarioFileMessage, { role: 'tool' }>;

interface Run {
  /** Checked by eventsOf: a broken line among good ones is named, not taken for another format. */
  readonly history: unknown;
  /** The output.jsonl line, absent for a bare event list (and for a line that is not an object). */
  readonly record?: Record<string, unknown>;
}

export const openhandsEvents: Importer = {
  format: FORMAT,
  description: 'OpenHands event history (output.jsonl lines {instance_id, history}, or a saved event list): one scenario per run',
  ...runsImporter(runsOf, 'expected OpenHands events: {history: [...]} per run, or a list of events', convertRun),
};

function isEvent(value: unknown): value is Event {
  return isRecord(value) && typeof value.source === 'string' && (typeof value.action === 'string' || typeof value.observation === 'string');
}

const isHistory = (value: unknown): value is unknown[] => mostly(value, isEvent);
const isLine = (value: unknown): value is Record<string, unknown> & { history: unknown[] } => isRecord(value) && isHistory(value.history);

/** One run (an output.jsonl line or a bare event list) or several (output.jsonl, read as a list of lines). */
function runsOf(data: unknown): Run[] | undefined {
  if (isHistory(data)) return [{ history: data }];
  if (isLine(data)) return [{ history: data.history, record: data }];
  if (!mostly(data, isLine)) return undefined;
  return data.map((line) => (isRecord(line) ? { history: line.history, record: line } : { history: undefined }));
}

/**
 * The events of a run, or an error naming its line. A run with no events (an instance whose container
 * failed before the agent started: `history: []` and an `error`) fails the file: a replay set that
 * silently lacks an instance the file lists would be compared as if whole.
 */
function eventsOf(run: Run, index: number | undefined, file: string, where: string): readonly Event[] {
  if (index !== undefined && !run.record) throw scenarioInvalid(file, `[${index}]: expected an output.jsonl line {instance_id, history}`);
  if (!Array.isArray(run.history)) throw scenarioInvalid(file, `${where}: expected a list of events`);
  if (run.history.length === 0) {
    const error = typeof run.record?.error === 'string' ? ` (error: ${run.record.error.slice(0, 200)})` : '';
    throw scenarioInvalid(file, `${where}: empty, nothing to replay${error}; leave the line out to load the others`);
  }
  run.history.forEach((event, i) => {
    if (!isEvent(event)) throw scenarioInvalid(file, `${where}[${i}]: expected an event {source, action or observation}`);
  });
  return run.history as Event[];
}

/** `index` is the run's line when the file holds several. */
function convertRun(run: Run, index: number | undefined, file: string): ScenarioFile {
  const record = run.record ?? {};
  const metadata = isRecord(record.metadata) ? record.metadata : {};
  const llm = isRecord(metadata.llm_config) ? metadata.llm_config : {};
  const where = index === undefined ? (run.record ? 'history' : '') : `[${index}].history`;
  const history = eventsOf(run, index, file, where);
  const id =
    typeof record.instance_id === 'string' && record.instance_id !== ''
      ? safeId(record.instance_id)
      : index === undefined
        ? fileStem(file)
        : runId(file, index);
  const maxChars = typeof llm.max_message_chars === 'number' ? llm.max_message_chars : undefined;
  return {
    ctxbench: 1,
    id,
    title: id,
    source: {
      format: FORMAT,
      agent: typeof metadata.agent_class === 'string' ? `OpenHands ${metadata.agent_class}` : 'OpenHands',
      file: path.basename(file),
      // e.g. "Agent reached maximum iteration": the run stopped without finishing.
      notes: typeof record.error === 'string' ? `error: ${record.error}` : undefined,
    },
    // What answered (as in openhands-litellm), else what was configured.
    model: { name: firstResponseModel(history) ?? (typeof llm.model === 'string' && llm.model !== '' ? llm.model : 'unknown') },
    // output.jsonl has no test result (test_result holds only the patch), so no outcome.
    messages: uniqueCallIds(toMessages(history, file, where, maxChars)),
  };
}

function toMessages(history: readonly Event[], file: string, where: string, maxChars: number | undefined): ScenarioFileMessage[] {
  const out: ScenarioFileMessage[] = [];
  // Model responses whose calls are not all answered yet, by response id, in the order they came.
  const pending = new Map<string, { assistant: Assistant; results: Map<string, Tool> }>();
  const sent = new Set<string>();
  const flush = (): void => {
    for (const [responseId, { assistant, results }] of pending) {
      const calls = assistant.toolCalls ?? [];
      if (!calls.every((call) => results.has(call.id))) continue;
      out.push(assistant, ...calls.map((call) => results.get(call.id)!));
      pending.delete(responseId);
      sent.add(responseId);
    }
  };
  // The model answered again, so a turn still waiting on a call gets no more results: it goes out
  // where it was, before the new response, with the calls that were answered (an unanswered call is
  // dropped, as ConversationMemory's _filter_unmatched_tool_calls drops it).
  const settle = (): void => {
    for (const [responseId, turn] of pending) {
      out.push(...answeredOnly(turn));
      pending.delete(responseId);
      sent.add(responseId);
    }
  };

  history.forEach((event, i) => {
    const at = `${where}[${i}]`;
    const metadata = isRecord(event.tool_call_metadata) ? event.tool_call_metadata : undefined;
    const args = isRecord(event.args) ? event.args : {};
    if (typeof event.action === 'string') {
      if (metadata) {
        const response = modelResponse(metadata.model_response, file, `${at}.tool_call_metadata.model_response`);
        const responseId = typeof response.id === 'string' ? response.id : `event-${String(event.id)}`;
        if (!pending.has(responseId) && !sent.has(responseId)) {
          settle();
          pending.set(responseId, { assistant: assistantTurn(response, file, `${at}.tool_call_metadata.model_response`), results: new Map() });
        }
      } else if (event.action === 'system') {
        out.push({ role: 'system', content: requireString(args.content, file, `${at}.args.content`) });
      } else if (event.action === 'message') {
        const content = requireString(args.content, file, `${at}.args.content`);
        out.push(event.source === 'agent' ? { role: 'assistant', content, toolCalls: [] } : { role: 'user', content });
      }
      // Other actions without a model response are not LLM messages: recall (the memory lookup; the
      // workspace context OpenHands renders from its observation comes from prompt templates that are
      // not in the file), agent state changes, condensation bookkeeping, commands the user ran.
    } else if (metadata) {
      const toolCallId = requireString(metadata.tool_call_id, file, `${at}.tool_call_metadata.tool_call_id`);
      const owner = [...pending.values()].find((p) => p.assistant.toolCalls?.some((call) => call.id === toolCallId));
      // An observation whose call is not pending (answered already, or its response never recorded) is
      // dropped, as ConversationMemory drops it.
      owner?.results.set(toolCallId, {
        role: 'tool',
        toolCallId,
        name: typeof metadata.function_name === 'string' ? metadata.function_name : undefined,
        content: truncate(observationText(event), maxChars),
      });
    } else if (event.observation === 'error') {
      // A failure before any tool ran (e.g. the call's arguments did not validate): the model saw it as user text.
      out.push({ role: 'user', content: truncate(typeof event.content === 'string' ? event.content : '', maxChars) + ERROR_SUFFIX });
    }
    // Other observations without tool_call_metadata are not LLM messages (recall results, agent state changes).
    flush();
  });

  // The last response's calls were never all answered: the run stopped on them (the final `finish` has
  // no observation). With none answered it keeps them all (a history may end on the calls being
  // executed); else it keeps the answered ones.
  for (const turn of pending.values()) out.push(...(turn.results.size === 0 ? [turn.assistant] : answeredOnly(turn)));
  return out;
}

/** A model response with only its answered calls, then their results in call order. */
function answeredOnly({ assistant, results }: { assistant: Assistant; results: Map<string, Tool> }): ScenarioFileMessage[] {
  const answered = (assistant.toolCalls ?? []).filter((call) => results.has(call.id));
  return [{ ...assistant, toolCalls: answered }, ...answered.map((call) => results.get(call.id)!)];
}

/** The completion as recorded: an object, or its JSON text in some versions. */
function modelResponse(raw: unknown, file: string, where: string): Record<string, unknown> {
  const response = jsonObject(raw);
  if (!response) throw scenarioInvalid(file, `${where}: expected a completion object`);
  return response;
}

function assistantTurn(response: Record<string, unknown>, file: string, where: string): Assistant {
  const choice = Array.isArray(response.choices) ? response.choices[0] : undefined;
  const message = isRecord(choice) ? choice.message : undefined;
  if (!isRecord(message)) throw scenarioInvalid(file, `${where}.choices[0].message: expected an object`);
  return {
    role: 'assistant',
    content: readText(message.content, file, `${where}.choices[0].message.content`),
    toolCalls: readToolCalls(message.tool_calls, file, `${where}.choices[0].message.tool_calls`),
    usage: recordedUsage(response.usage),
  };
}

/**
 * What the model read for an observation. A command's output gets the footer OpenHands'
 * CmdOutputObservation.to_agent_observation adds from extras.metadata (suffix, working directory,
 * interpreter, exit code); other observations are their content.
 */
function observationText(event: Event): string {
  const content = typeof event.content === 'string' ? event.content : '';
  const extras = isRecord(event.extras) ? event.extras : {};
  if (event.observation !== 'run' || !isRecord(extras.metadata)) return content;
  const meta = extras.metadata;
  let text = `${typeof meta.prefix === 'string' ? meta.prefix : ''}${content}${typeof meta.suffix === 'string' ? meta.suffix : ''}`;
  if (typeof meta.working_dir === 'string' && meta.working_dir !== '') text += `\n[Current working directory: ${meta.working_dir}]`;
  if (typeof meta.py_interpreter_path === 'string' && meta.py_interpreter_path !== '') text += `\n[Python interpreter: ${meta.py_interpreter_path}]`;
  if (typeof meta.exit_code === 'number' && meta.exit_code !== -1) text += `\n[Command finished with exit code ${meta.exit_code}]`;
  return text;
}

/** OpenHands' truncate_content, counting characters (code points) as Python does. */
export function truncate(text: string, maxChars: number | undefined): string {
  if (!maxChars || maxChars < 0 || text.length <= maxChars) return text;
  const chars = [...text];
  if (chars.length <= maxChars) return text;
  const half = Math.floor(maxChars / 2);
  return chars.slice(0, half).join('') + TRUNCATED + chars.slice(chars.length - half).join('');
}

function firstResponseModel(history: readonly Event[]): string | undefined {
  for (const event of history) {
    const metadata = isRecord(event.tool_call_metadata) ? event.tool_call_metadata : undefined;
    const model = metadata ? jsonObject(metadata.model_response)?.model : undefined;
    if (typeof model === 'string' && model !== '') return model;
  }
  return undefined;
}
