/**
 * OpenHands litellm completion logs (`llm_completions/<instance>/<model>-<ts>.json`, one file per LLM
 * call). Without condensation each call's messages extend the previous call's, so the last file of an
 * instance is the whole trajectory: its `messages` plus the answer in `response`. The files of one
 * instance join into one scenario (`calls`): the last call's conversation, with every call's recorded
 * usage at the turn it produced.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { scenarioInvalid } from '../../core/errors.js';
import { stableJson } from '../../core/stable-json.js';
import type { ScenarioFile, ScenarioFileMessage } from '../schema.js';
import { isRecord, recordedUsage, requireString } from './json.js';
import { readText, uniqueCallIds } from './openai.js';
import { readSidecar } from './sidecar.js';
import { readTools } from './tools.js';
import { safeId } from './runs.js';
import type { CallJoiner, Importer } from './types.js';

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
    const instance = path.basename(path.dirname(path.resolve(file)));
    const id = safeId(instance);
    const labels = await readSidecar(file, 'labels.derived.json');
    const outcome = isRecord(labels) ? labels[instance] : undefined;
    // litellm passes the tool definitions (sent with every call) in kwargs.
    const tools = readTools(kwargs.tools, file, 'kwargs.tools');
    return {
      ctxbench: 1,
      id,
      title: instance,
      source: { format: FORMAT, agent: 'OpenHands', file: path.basename(file) },
      model: { name: requireString(response.model ?? kwargs.model, file, 'response.model') },
      outcome: typeof outcome === 'string' ? outcome : undefined,
      ...(tools ? { tools } : {}),
      // Renaming a reused id depends only on the messages before it, so each call's messages stay a prefix of the next's.
      messages: uniqueCallIds([
        ...data.messages.map((m, i) => readMessage(m, file, `messages[${i}]`)),
        // Only the final call's usage is in the file: earlier turns' calls were logged in other files.
        { ...final, usage: recordedUsage(response.usage) },
      ]),
    };
  },
  calls: {
    // The instance id is the folder: every call file of an instance is in it.
    runOf: (_data, file) => path.dirname(path.resolve(file)),
    join: joinCalls,
  },
};

/** What joining keeps of a call: when it was made, what it sent (digests), its answer (a digest) and usage. */
interface Call {
  readonly at: number;
  /** How many messages it sent: its answer is the message at this index of the conversation. */
  readonly sent: number;
  readonly sentDigest: string;
  /** Its conversation (what it sent, then its answer): a later call of the run sent it as its prefix. */
  readonly fullDigest: string;
  /** What it sent up to the task (the first user message): the attempts of one task share it. */
  readonly opening: string;
  readonly usage: Extract<ScenarioFileMessage, { role: 'assistant' }>['usage'];
}

/** A call no other call continued: the last call of a conversation, held whole. */
interface End {
  readonly call: Call;
  readonly data: ScenarioFile;
}

const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
/** A message as the conversation holds it: the usage is the call's, not part of what later calls sent. */
const withoutUsage = (message: ScenarioFileMessage): ScenarioFileMessage => (message.role === 'assistant' ? { ...message, usage: undefined } : message);
const chain = (digest: string, message: ScenarioFileMessage): string => sha256(`${digest}\n${stableJson(withoutUsage(message))}`);

/** digests[k] identifies messages[0..k): each chains the one before it with the next message. */
function prefixDigests(messages: readonly ScenarioFileMessage[]): string[] {
  const digests = [''];
  for (const message of messages) digests.push(chain(digests.at(-1)!, message));
  return digests;
}

/** True when `a` was made after `b` (the longer one on a tie). */
const later = (a: Call, b: Call): boolean => a.at > b.at || (a.at === b.at && a.sent > b.sent);

/**
 * The calls of one folder, joined by conversation: each call's messages are the previous call's
 * conversation plus what followed, so a run is a chain of calls, and its scenario is the conversation
 * of its last call with the usage each call recorded on the turn it answered with. Calls no later
 * call continued end a conversation; of the conversations that open on the same task (through the
 * first user message) the latest is the run and the others (aborted attempts of a restarted instance)
 * are left out and counted in `source.notes`; conversations of other tasks (call files of several
 * instances in one folder) are runs of their own, in time order. Only conversations no call has
 * continued yet are held whole.
 */
function joinCalls(): CallJoiner {
  const calls: Call[] = [];
  /** Every prefix some call sent: a call whose conversation is one was continued. */
  const continued = new Set<string>();
  const ends = new Map<string, End>();
  return {
    async add(raw, file) {
      const data = await openhandsLitellm.convert(raw, file);
      const sent = data.messages.slice(0, -1);
      const answer = data.messages.at(-1)!;
      const digests = prefixDigests(sent);
      const task = sent.findIndex((m) => m.role === 'user');
      const call: Call = {
        at: isRecord(raw) && typeof raw.timestamp === 'number' ? raw.timestamp : Number.NEGATIVE_INFINITY,
        sent: sent.length,
        sentDigest: digests.at(-1)!,
        fullDigest: chain(digests.at(-1)!, answer),
        opening: digests[task < 0 ? sent.length : task + 1]!,
        usage: answer.role === 'assistant' ? answer.usage : undefined,
      };
      calls.push(call);
      for (const digest of digests.slice(1)) {
        continued.add(digest);
        ends.delete(digest);
      }
      const held = ends.get(call.fullDigest);
      if (!continued.has(call.fullDigest) && (!held || later(call, held.call))) ends.set(call.fullDigest, { call, data });
    },
    scenarios() {
      // The latest conversation of each task, in time order.
      const byTask = new Map<string, End>();
      for (const end of ends.values()) {
        const other = byTask.get(end.call.opening);
        if (!other || later(end.call, other.call)) byTask.set(end.call.opening, end);
      }
      const runs = [...byTask.values()].sort((a, b) => (later(a.call, b.call) ? 1 : later(b.call, a.call) ? -1 : 0));
      if (runs.length === 1 && calls.length === 1) return [runs[0]!.data];
      return runs.map(({ data }, i) => {
        const scenario = joinRun(data, calls.filter((call) => call.opening === runs[i]!.call.opening));
        const id = safeId(`${data.id}@${i}`);
        return runs.length === 1 ? scenario : { ...scenario, id, title: id };
      });
    },
  };
}

/** `data` (a run's last call) with the recorded usage of each of `calls` that it continued, at the turn it produced. */
function joinRun(data: ScenarioFile, calls: readonly Call[]): ScenarioFile {
  const digests = prefixDigests(data.messages);
  const answered = new Map<number, Call>();
  let left = 0;
  for (const call of calls) {
    if (digests[call.sent] !== call.sentDigest || digests[call.sent + 1] !== call.fullDigest) {
      left += 1;
      continue;
    }
    const other = answered.get(call.sent);
    if (other === undefined || call.at > other.at) answered.set(call.sent, call);
  }
  const notes = `${calls.length} call files joined: the recorded usage of ${answered.size} requests at the steps they were made${left > 0 ? `; ${left} left out (not a prefix of the last call: another attempt)` : ''}`;
  return {
    ...data,
    source: { format: FORMAT, ...data.source, notes },
    messages: data.messages.map((m, i) => {
      const call = answered.get(i);
      return call && m.role === 'assistant' ? { ...m, usage: call.usage } : m;
    }),
  };
}

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
