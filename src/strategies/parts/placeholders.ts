/**
 * Descriptive placeholders for masked tool outputs, per tool kind (seed 000 "Observation Masking
 * Placeholder Generation"): the model keeps knowing what it ran and roughly what came back.
 */
import type { Message, ToolCall, ToolMessage } from '../../core/messages.js';
import { argumentsObject } from './message-edits.js';

export type ToolKind = 'file_read' | 'file_write' | 'shell' | 'other';

const READ = /^(read_file|file_read|read|view|view_file|cat|open_file|get_file|read_many_files)$/i;
const WRITE = /^(write_file|file_write|edit_file|create_file|edit|str_replace|apply_patch|write)$/i;
const SHELL = /^(bash|shell|shell_exec|execute_bash|run|run_command|run_shell_command|terminal|exec|execute_command)$/i;
const EDITOR = /^(str_replace_editor|text_editor|str_replace_based_edit_tool)$/i;

/** Classifies a tool by name, and for multi-command editors (OpenHands, Anthropic) by its command. */
export function toolKind(name: string, args: Record<string, unknown>): ToolKind {
  if (READ.test(name)) return 'file_read';
  if (WRITE.test(name)) return 'file_write';
  if (SHELL.test(name)) return 'shell';
  if (EDITOR.test(name)) return args['command'] === 'view' ? 'file_read' : 'file_write';
  return 'other';
}

/** Exit code from the shapes agents use: JSON {exit_code}, <returncode>N</returncode>, OpenHands' footer. */
export function exitCode(content: string): number | undefined {
  const tagged = /<returncode>(-?\d+)<\/returncode>/.exec(content) ?? /exit code (-?\d+)\]/.exec(content);
  if (tagged) return Number(tagged[1]);
  if (content.trimStart().startsWith('{')) {
    try {
      const code = (JSON.parse(content) as { exit_code?: unknown }).exit_code;
      return typeof code === 'number' ? code : undefined;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function firstLine(content: string, max = 60): string {
  const line = content.split('\n').find((l) => l.trim() !== '')?.trim() ?? '';
  return line.length > max ? `${line.slice(0, max)}...` : line;
}

const lineCount = (content: string): number => (content === '' ? 0 : content.split('\n').length);
const bytes = (content: string): number => Buffer.byteLength(content, 'utf8');

export function placeholder(message: ToolMessage, call: ToolCall | undefined): string {
  const args = argumentsObject(call);
  const kind = toolKind(message.name, args);
  const content = message.content;
  const path = typeof args['path'] === 'string' ? `${args['path']}, ` : '';
  switch (kind) {
    case 'file_read':
      return `[file_read result masked -- ${path}${lineCount(content)} lines, starts with: ${firstLine(content)}]`;
    case 'shell': {
      const code = exitCode(content);
      const status = code === undefined ? '' : `exit_code=${code}, `;
      return `[${message.name} result masked -- ${status}${lineCount(content)} lines, ${bytes(content)} bytes of output]`;
    }
    case 'file_write':
      return `[file_write result masked -- ${path}${bytes(content)} bytes]`;
    case 'other':
      return `[${message.name} result masked -- ${bytes(content)} bytes of output]`;
  }
}

/**
 * The call the tool message at `index` answers: by the pairing invariant, one of the calls of the
 * nearest assistant turn before it. A few steps back instead of a map of the whole history.
 */
export function answeredCall(messages: readonly Message[], index: number): ToolCall | undefined {
  const message = messages[index];
  if (message?.role !== 'tool') return undefined;
  for (let i = index - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role === 'assistant') return m.toolCalls.find((c) => c.id === message.toolCallId);
  }
  return undefined;
}

/** Maps each tool_call_id to its call, for placeholders that mention the path or command kind. */
export function callsById(messages: readonly Message[]): Map<string, ToolCall> {
  const calls = new Map<string, ToolCall>();
  for (const m of messages) if (m.role === 'assistant') m.toolCalls.forEach((c) => calls.set(c.id, c));
  return calls;
}
