/**
 * mini-swe-agent trajectories (`trajectory_format: "mini-swe-agent-1"`). The format has no native tool
 * calls: the action is the fenced bash block of an assistant turn and its output is the next user
 * message, so calls and results are rebuilt by position.
 */
import path from 'node:path';
import { scenarioInvalid } from '../../core/errors.js';
import type { ScenarioFile, ScenarioFileMessage } from '../schema.js';
import { isRecord, recordedUsage, requireString } from './json.js';
import { safeId } from './runs.js';
import { readSidecar } from './sidecar.js';
import { isSubmission } from './submission.js';
import type { Importer } from './types.js';

const FORMAT = 'mini-swe-agent-1';
/** mini-swe-agent's own `action_regex`: exactly one match is an action, any other count a format error. */
const ACTION = /```bash\s*\n(.*?)\n```/gs;

interface Recorded {
  readonly role: 'system' | 'user' | 'assistant';
  readonly content: string;
  readonly usage: unknown;
}

export const miniSweAgent: Importer = {
  format: FORMAT,
  description: 'mini-swe-agent trajectory (*.traj.json): one fenced bash action per turn, its output in the next user message',
  detect: (data) => isRecord(data) && data.trajectory_format === FORMAT && Array.isArray(data.messages),
  async convert(data, file): Promise<ScenarioFile> {
    if (!isRecord(data) || !Array.isArray(data.messages)) throw scenarioInvalid(file, 'messages: expected an array');
    const instance = requireString(data.instance_id, file, 'instance_id');
    const id = safeId(instance);
    const info = isRecord(data.info) ? data.info : {};
    const config = isRecord(info.config) && isRecord(info.config.model) ? info.config.model : {};
    const recorded = data.messages.map((m, i) => readMessage(m, file, i));
    const version = typeof info.mini_version === 'string' ? ` ${info.mini_version}` : '';
    return {
      ctxbench: 1,
      id,
      title: instance,
      source: { format: FORMAT, agent: `mini-swe-agent${version}`, file: path.basename(file), license: 'MIT' },
      model: { name: requireString(config.model_name, file, 'info.config.model.model_name') },
      outcome: await readOutcome(file, instance),
      messages: toMessages(dropSubmission(recorded, info.submission)),
    };
  },
};

function readMessage(raw: unknown, file: string, index: number): Recorded {
  const where = `messages[${index}]`;
  if (!isRecord(raw)) throw scenarioInvalid(file, `${where}: expected an object`);
  if (raw.role !== 'system' && raw.role !== 'user' && raw.role !== 'assistant') {
    throw scenarioInvalid(file, `${where}.role: expected system, user or assistant`);
  }
  const extra = isRecord(raw.extra) && isRecord(raw.extra.response) ? raw.extra.response : {};
  return { role: raw.role, content: requireString(raw.content, file, `${where}.content`), usage: extra.usage };
}

/** The single bash action of an assistant turn, or undefined when it has none or several. */
function findAction(content: string): { command: string; rest: string } | undefined {
  const matches = [...content.matchAll(ACTION)];
  if (matches.length !== 1) return undefined;
  const match = matches[0]!;
  return {
    command: match[1]!.trim(),
    rest: (content.slice(0, match.index) + content.slice(match.index + match[0].length)).trim(),
  };
}

/**
 * The submit command's output, the patch (info.submission), recorded as a last user message the model
 * never saw. Known by its text: the command may be `echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`, the
 * legacy `echo MINI_SWE_AGENT_FINAL_OUTPUT`, or either after a `cd /testbed &&`.
 */
function dropSubmission(messages: readonly Recorded[], submission: unknown): readonly Recorded[] {
  const last = messages.at(-1);
  return last?.role === 'user' && isSubmission(last.content, submission) ? messages.slice(0, -1) : messages;
}

function toMessages(recorded: readonly Recorded[]): ScenarioFileMessage[] {
  const out: ScenarioFileMessage[] = [];
  let pendingCall: string | undefined;
  let ordinal = 0;
  for (const m of recorded) {
    if (m.role === 'user' && pendingCall) {
      out.push({ role: 'tool', toolCallId: pendingCall, name: 'bash', content: m.content });
      pendingCall = undefined;
    } else if (m.role === 'assistant') {
      // Ids come from the assistant's position, so the same file always gives the same ids.
      const callId = `call_${String(ordinal++).padStart(4, '0')}`;
      const action = findAction(m.content);
      pendingCall = action ? callId : undefined;
      const toolCalls = action ? [{ id: callId, name: 'bash', arguments: JSON.stringify({ command: action.command }) }] : [];
      out.push({ role: 'assistant', content: action?.rest ?? m.content, toolCalls, usage: recordedUsage(m.usage) });
    } else {
      out.push({ role: m.role, content: m.content });
    }
  }
  return out;
}

/** A name that stays one folder in a path: no separator, no dot-dot, no NUL, a length a file system takes. */
const isPlainSegment = (name: string): boolean => /^[^/\\\0]{1,200}$/.test(name) && name !== '.' && name !== '..';

/** "resolved" / "unresolved" from the SWE-bench results of the run, when they lie next to the trajectory. */
async function readOutcome(file: string, id: string): Promise<string | undefined> {
  const summary = await readSidecar(file, 'results_summary.json');
  const entry = isRecord(summary) && Array.isArray(summary.instances) ? summary.instances.find((i) => isRecord(i) && i.instance_id === id) : undefined;
  let resolved = isRecord(entry) ? entry.resolved : undefined;
  // The id comes from the file: it names a folder only when it is one plain path segment.
  if (resolved === undefined && isPlainSegment(id)) {
    // The harness report is either the bare report or keyed by instance id ({<id>: report}).
    const report = await readSidecar(file, path.join('logs', id, 'report.json'));
    const body = isRecord(report) && isRecord(report[id]) ? report[id] : report;
    resolved = isRecord(body) ? body.resolved : undefined;
  }
  return typeof resolved === 'boolean' ? (resolved ? 'resolved' : 'unresolved') : undefined;
}
