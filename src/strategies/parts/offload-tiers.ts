/**
 * Seed 002's reversible tiers, shared by `offload` (tiers 1-2 alone) and `summarization` (tier 3,
 * after these when offloadFirst is on):
 * - tier 1: a tool result over largeResultTokens goes to the offload store at once; a preview and a
 *   read-back instruction (the seed's wording) stay in its place.
 * - tier 2: above compactionThreshold of the window, the content written by file-write calls (in the
 *   ARGUMENTS of the assistant's tool calls) and long file-write results are replaced by pointers.
 * Every pointer names a store path that holds exactly the text it replaced, so each step is reversible.
 *
 * Differences from the seed, on purpose:
 * - Sizes come from the run's token counter (tool-call arguments and per-message framing included);
 *   the seed's estimate counts only text parts and undercounts (seeds/README.md).
 * - Store paths are built from tool names and call ids that come from the conversation: every part
 *   goes through safeSegment/confine, and a clash gets a numbered suffix instead of overwriting.
 *   The seed's UTC timestamp becomes the step number (replays are deterministic), and the full call id
 *   replaces its first 8 characters (`call_0_1` and `call_0_10` would collide).
 * - Tier-2 pointers name the store file holding the original arguments (the seed pointed at the
 *   workspace file, which later edits change); preview lines are clipped, so a one-line 20k-token
 *   result still shrinks; results the model has not seen yet (after the latest assistant turn) are
 *   not compacted by tier 2.
 * - Besides write_file/edit_file, every tool placeholders.ts classifies as a file write counts
 *   (str_replace_editor create/str_replace, ...), with its written-content fields.
 *
 * `offloadStyle=deepagents` replaces tier 1 with deepagents' eviction (deepagents-eviction.ts) and
 * has no tier 2, as deepagents' FilesystemMiddleware has none.
 */
import { prefixFollower, type PrefixFollower } from '../../core/append-only.js';
import { unseenFrom } from '../../core/cut-points.js';
import { strategyOrigin, withContent, type AssistantMessage, type Message, type ToolCall, type ToolMessage } from '../../core/messages.js';
import { confine, safeSegment, type OffloadStore } from '../../core/offload-store.js';
import type { ParamSpecs, ParamsOf } from '../../core/params.js';
import type { StrategyEvent, StrategyInput } from '../../core/strategy.js';
import { PER_MESSAGE_TOKENS } from '../../core/tokens.js';
import { evictionMessage, evicts } from './deepagents-eviction.js';
import { argumentsObject, withToolArguments } from './message-edits.js';
import { callsById, toolKind } from './placeholders.js';

/** The parameters of tiers 1-2, shared by every strategy that runs them. */
export const OFFLOAD_PARAMS = {
  offloadStyle: {
    kind: 'choice',
    default: 'valis',
    values: ['valis', 'deepagents'],
    description:
      "The seed's tiers 1-2, or deepagents' eviction: results over largeResultTokens at 4 characters a token, a head and tail of previewLines each under /large_tool_results/<call id>, never those of ls, glob, grep, read_file, edit_file, write_file; no tier 2.",
  },
  largeResultTokens: {
    kind: 'integer',
    default: 20_000,
    min: 1,
    unlimited: true,
    description: 'Tier 1: a tool result over this many tokens goes to the offload store at once ("unlimited" turns tier 1 off).',
  },
  compactionThreshold: { kind: 'fraction', default: 0.85, description: 'Tier 2: above this share of the window, file-write contents and long file-write results become pointers.' },
  previewLines: { kind: 'integer', default: 10, min: 0, max: 1000, description: 'Lines of an offloaded result shown as its preview.' },
  recoveryPrompt: { kind: 'boolean', default: true, description: "Append the seed's recovery instructions to the system prompt." },
} as const satisfies ParamSpecs;

export type OffloadSettings = ParamsOf<typeof OFFLOAD_PARAMS>;

/** Seed 002's system-prompt segment (get_system_prompt_segment), word for word. */
export const RECOVERY_PROMPT = [
  '',
  '## Context Management',
  '',
  'Your conversation history is automatically managed to stay within context limits:',
  '',
  '1. **Large outputs** are saved to `/tool_outputs/` with a preview shown',
  '2. **File contents** from write/edit operations are replaced with pointers',
  '3. **If context gets very long**, a summary is created and full history saved to `/conversation_history/`',
  '',
  '**To recover information:**',
  '- Use `read_file("/tool_outputs/...")` to view full tool outputs',
  '- Use `grep("keyword", "/conversation_history/")` to search past conversations',
  '- Use `ls("/conversation_history/")` to see saved conversations',
  '',
  'The original, uncompacted conversation is always preserved on the filesystem.',
  '',
].join('\n');

/** Seed: a file-write result longer than this many characters is replaced in tier 2. */
const FILE_RESULT_CHARS = 500;
/** Seed: characters of written content kept as the pointer's preview. */
const ARGUMENT_PREVIEW_CHARS = 100;
/** Ours: a preview line is clipped here, so the preview stays small whatever the line lengths. */
const PREVIEW_LINE_CHARS = 200;
/** Argument fields that carry written content: the seed's (content, new_text) and the editors'. */
const WRITTEN_FIELDS = ['content', 'new_text', 'file_text', 'new_str', 'new_string'] as const;

const readBack = (path: string): string => `Use read_file("${path}") to view full content.`;

/** Seed 002's replacement for an offloaded result: where it went, a preview, how to read it back. */
export function largeOutputPointer(path: string, content: string, previewLines: number): string {
  const lines = content.split('\n');
  const clip = (line: string): string => (line.length > PREVIEW_LINE_CHARS ? `${line.slice(0, PREVIEW_LINE_CHARS)}...` : line);
  let preview = lines.slice(0, previewLines).map(clip).join('\n');
  if (lines.length > previewLines) preview += `\n... (${lines.length - previewLines} more lines)`;
  return `[Large output saved to ${path}]\n\nPreview (first ${previewLines} lines):\n${preview}\n\n${readBack(path)}`;
}

/** Seed 002's pointer for a written-content argument, plus where the original arguments are. */
function argumentPointer(field: (typeof WRITTEN_FIELDS)[number], value: string, target: string, stored: string): string {
  const seedText =
    field === 'content' || field === 'file_text'
      ? `[Content written to ${target}] Preview: ${value.slice(0, ARGUMENT_PREVIEW_CHARS)}...`
      : `[See ${target} for content]`;
  return `${seedText} Original arguments saved: ${readBack(stored)}`;
}

/** Seed 002's replacement for a long file-write result, plus where the original output is. */
const fileResultPointer = (stored: string): string =>
  `[File operation completed successfully. Use read_file() to view current content.]\nOriginal output saved: ${readBack(stored)}`;

/**
 * A store path under `dir` for `name` that no earlier write holds. `name` comes from the conversation
 * (tool names, call ids): it becomes one safe segment, and a clash (two ids that sanitize alike) gets a
 * numbered suffix instead of overwriting an original.
 */
function freshPath(files: OffloadStore, dir: string, name: string, ext: string): string {
  const base = `${dir}/${safeSegment(name)}`;
  let path = confine(`${base}${ext}`);
  for (let n = 2; files.read(path) !== undefined; n++) path = confine(`${base}-${n}${ext}`);
  return path;
}

export interface TierOutcome {
  readonly messages: readonly Message[];
  /** Tokens of `messages` as a request, by the run's counter. */
  readonly tokens: number;
  readonly events: StrategyEvent[];
}

interface Tiers {
  readonly input: StrategyInput;
  readonly strategy: string;
  readonly settings: OffloadSettings;
}

const isEdited = (m: Message): boolean => m.origin.source === 'strategy';

/** Appends the recovery segment to the scenario's system prompt, once (same id, new origin). */
export function withRecoveryPrompt(input: StrategyInput, strategy: string, messages: readonly Message[]): readonly Message[] {
  const first = messages[0];
  if (!first || first.id !== input.systemPrompt?.id || isEdited(first)) return messages;
  return [withContent(first, `${first.content}\n${RECOVERY_PROMPT}`, strategyOrigin(strategy, 'recovery-prompt')), ...messages.slice(1)];
}

/** Where tier 1 puts a result over the limit and what it leaves in its place; undefined to leave it. */
function offloaded({ input, settings }: Tiers, m: ToolMessage, limit: number): { path: string; text: string } | undefined {
  const { files, step } = input;
  if (settings.offloadStyle === 'deepagents') {
    if (!evicts(m.name, m.content, limit)) return undefined;
    const path = freshPath(files, '/large_tool_results', m.toolCallId, '');
    return { path, text: evictionMessage(m.toolCallId, path, m.content, settings.previewLines) };
  }
  if (input.counter.countMessage(m) - PER_MESSAGE_TOKENS <= limit) return undefined;
  const path = freshPath(files, '/tool_outputs', `${m.name}_step${step}_${m.toolCallId}`, '.txt');
  return { path, text: largeOutputPointer(path, m.content, settings.previewLines) };
}

/**
 * What tier 1 left at a run's last request (`left`), and where the first result over the limit that
 * it kept stands (its preview was no shorter; that verdict depends on the step, in the path). Whether
 * a result is under the limit depends on the message alone, so the next request's messages that are
 * those same ones, before that kept one, are not looked at again: a request costs what changed since,
 * not every result of the context again.
 */
export interface TierMemory {
  readonly left: PrefixFollower;
  keptOver: number;
}

export const tierMemory = (): TierMemory => ({ left: prefixFollower(), keptOver: 0 });

/** Tier 1: every tool result over largeResultTokens to the store, a preview in its place. */
function offloadLargeResults(tiers: Tiers, messages: readonly Message[], memory?: TierMemory): { messages: readonly Message[]; events: StrategyEvent[] } {
  const { input, strategy, settings } = tiers;
  const { largeResultTokens } = settings;
  if (largeResultTokens === 'unlimited') return { messages, events: [] };
  const { counter, files } = input;
  let out: Message[] | undefined;
  const events: StrategyEvent[] = [];
  const from = memory === undefined ? 0 : Math.min(memory.left.shared(messages), memory.keptOver);
  let keptOver = Number.POSITIVE_INFINITY;
  for (let i = from; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role !== 'tool' || isEdited(m)) continue;
    const target = offloaded(tiers, m, largeResultTokens);
    if (!target) continue;
    const { path, text } = target;
    const before = counter.countMessage(m);
    const replaced = withContent(m, text, strategyOrigin(strategy, 'offloaded-result'));
    const after = counter.countMessage(replaced);
    if (after >= before) {
      keptOver = Math.min(keptOver, i);
      continue;
    }
    files.write(path, m.content);
    (out ??= [...messages])[i] = replaced;
    events.push({ kind: 'offloaded', messageId: m.id, detail: `tier 1: ${m.name} result saved to ${path}`, tokensBefore: before, tokensAfter: after });
  }
  const result = out ?? messages;
  if (memory !== undefined) {
    memory.left.record(result, from);
    memory.keptOver = keptOver;
  }
  return { messages: result, events };
}

/** Whether each call writes a file, known once per call: tier 2 asks it of every call in the context at every request. */
const fileWrites = new WeakMap<ToolCall, boolean>();
function isFileWrite(call: ToolCall | undefined, name: string): boolean {
  if (call === undefined) return toolKind(name, {}) === 'file_write';
  let known = fileWrites.get(call);
  if (known === undefined) fileWrites.set(call, (known = toolKind(call.name, argumentsObject(call)) === 'file_write'));
  return known;
}

/** Tier 2 for one assistant message: its file-write calls' written content to the store. */
function compactCalls({ input, strategy }: Tiers, m: AssistantMessage): { message: AssistantMessage; stored: string[] } {
  const stored: string[] = [];
  if (!m.toolCalls.some((call) => isFileWrite(call, call.name))) return { message: m, stored };
  const argumentsOf = (call: ToolCall): string => {
    const args = argumentsObject(call);
    const fields = WRITTEN_FIELDS.filter((f) => typeof args[f] === 'string');
    if (fields.length === 0 || !isFileWrite(call, call.name)) return call.arguments;
    const path = freshPath(input.files, '/tool_calls', `${call.name}_step${input.step}_${call.id}`, '.json');
    const target = String(args['path'] ?? args['file_path'] ?? 'unknown');
    const pointed = { ...args, ...Object.fromEntries(fields.map((f) => [f, argumentPointer(f, args[f] as string, target, path)])) };
    const text = JSON.stringify(pointed);
    if (text.length >= call.arguments.length) return call.arguments;
    input.files.write(path, call.arguments);
    stored.push(path);
    return text;
  };
  const message = withToolArguments(m, argumentsOf, strategyOrigin(strategy, 'compacted-call'));
  return { message: stored.length > 0 ? message : m, stored };
}

/** Tier 2: file-write contents in calls, and long file-write results the model has seen, to the store. */
function compactFileWrites(tiers: Tiers, messages: readonly Message[]): { messages: readonly Message[]; events: StrategyEvent[] } {
  const { input, strategy } = tiers;
  const { counter, files, step } = input;
  const calls = callsById(messages);
  const unseen = unseenFrom(messages);
  let out: Message[] | undefined;
  const events: StrategyEvent[] = [];
  const replace = (i: number, m: Message, next: Message, detail: string): void => {
    (out ??= [...messages])[i] = next;
    events.push({ kind: 'offloaded', messageId: m.id, detail, tokensBefore: counter.countMessage(m), tokensAfter: counter.countMessage(next) });
  };
  messages.forEach((m, i) => {
    if (isEdited(m)) return;
    if (m.role === 'assistant') {
      const { message, stored } = compactCalls(tiers, m);
      if (stored.length > 0) replace(i, m, message, `tier 2: file-write arguments saved to ${stored.join(', ')}`);
      return;
    }
    // Results after the latest assistant turn are unseen by the model: they stay.
    if (m.role !== 'tool' || i >= unseen || m.content.length <= FILE_RESULT_CHARS) return;
    if (!isFileWrite(calls.get(m.toolCallId), m.name)) return;
    const path = freshPath(files, '/tool_outputs', `${m.name}_step${step}_${m.toolCallId}`, '.txt');
    files.write(path, m.content);
    replace(i, m, withContent<ToolMessage>(m, fileResultPointer(path), strategyOrigin(strategy, 'compacted-result')), `tier 2: ${m.name} result saved to ${path}`);
  });
  return { messages: out ?? messages, events };
}

/**
 * Tiers 1-2 before a request: the recovery segment (once), tier 1 always, tier 2 when the context is
 * above compactionThreshold of the window (never with offloadStyle=deepagents, which has none).
 * Returns the same array when nothing changed. `memory`: the run's (tierMemory), so tier 1 looks only
 * at what changed since its last request.
 */
export function applyOffloadTiers(input: StrategyInput, strategy: string, settings: OffloadSettings, memory?: TierMemory): TierOutcome {
  const tiers: Tiers = { input, strategy, settings };
  const { counter, window } = input;
  const prompted = settings.recoveryPrompt ? withRecoveryPrompt(input, strategy, input.messages) : input.messages;
  const tier1 = offloadLargeResults(tiers, prompted, memory);
  const tokens = counter.countContext(tier1.messages);
  // The seed compares with ">" (manage_context).
  if (settings.offloadStyle === 'deepagents' || tokens <= settings.compactionThreshold * window) return { messages: tier1.messages, tokens, events: tier1.events };
  const tier2 = compactFileWrites(tiers, tier1.messages);
  return { messages: tier2.messages, tokens: counter.countContext(tier2.messages), events: [...tier1.events, ...tier2.events] };
}
