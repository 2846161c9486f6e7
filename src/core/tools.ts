/**
 * Tool definitions: what an agent's requests declare it may call (OpenAI function tools, Anthropic
 * tools). Providers bill them with every request that sends them, so they are part of a request's
 * size (design DEFINITION "Token accounting").
 */
import type { Message } from './messages.js';

/** A tool the agent may call, as a request declares it. */
export interface ToolDefinition {
  readonly name: string;
  readonly description?: string | undefined;
  /** The JSON Schema of its arguments. */
  readonly parameters?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * A tool as requests declare it, in the shapes read (readToolDefinitions): ctxbench's, Anthropic's
 * (`input_schema`), OpenAI's function and custom tools.
 */
export type ToolDeclaration =
  | ToolDefinition
  | { readonly name: string; readonly description?: string | undefined; readonly input_schema?: Readonly<Record<string, unknown>> | undefined }
  | { readonly type: string; readonly function: ToolDefinition }
  | { readonly type: string; readonly custom: { readonly name: string; readonly description?: string | undefined } };

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Tool definitions as ctxbench holds them, from what a request declared: OpenAI's `{type: 'function',
 * function: {name, description, parameters}}` (litellm logs too), OpenAI's custom tools `{type:
 * 'custom', custom: {name, description}}`, Anthropic's `{name, description, input_schema}` or
 * ctxbench's own. A tool with no schema to read (a custom tool, an Anthropic server tool) keeps its
 * name and description. Undefined when none was declared. `invalid` makes the error for a declaration
 * that cannot be read, given its path (`where[2].function.name: expected a string`).
 */
export function readToolDefinitions(raw: unknown, where: string, invalid: (problem: string) => Error): ToolDefinition[] | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!Array.isArray(raw)) throw invalid(`${where}: expected a list of tool definitions`);
  if (raw.length === 0) return undefined;
  return raw.map((tool: unknown, i) => {
    const at = `${where}[${i}]`;
    if (!isObject(tool)) throw invalid(`${at}: expected an object`);
    const nested = isObject(tool.function) ? 'function' : isObject(tool.custom) ? 'custom' : undefined;
    const definition = nested === undefined ? tool : (tool[nested] as Record<string, unknown>);
    const prefix = nested === undefined ? at : `${at}.${nested}`;
    if (typeof definition.name !== 'string') throw invalid(`${prefix}.name: expected a string`);
    if (definition.name === '') throw invalid(`${prefix}.name: is empty`);
    const schema = definition.parameters ?? definition.input_schema;
    return {
      name: definition.name,
      ...(typeof definition.description === 'string' ? { description: definition.description } : {}),
      ...(isObject(schema) ? { parameters: schema } : {}),
    };
  });
}

/**
 * The definitions as ctxbench counts them: the JSON of each `{name, description, parameters}` (absent
 * fields left out), one a line. Providers render them their own way (OpenAI as a TypeScript-like
 * namespace, Anthropic with a tool-use system prompt): calibration fits what differs.
 */
export function toolsText(tools: readonly ToolDefinition[]): string {
  return tools.map(({ name, description, parameters }) => JSON.stringify({ name, description, parameters })).join('\n');
}

/**
 * Whether a request sends the tool definitions: an agent request always (its answer may call one); any
 * other request (a summary, a checkpoint, a probe question) only when its messages hold a tool call or
 * result, which Anthropic refuses without the definitions. A summary request of plain text sends none.
 */
export function sendsTools(messages: readonly Message[], purpose: string): boolean {
  return purpose === 'agent' || messages.some((m) => m.role === 'tool' || (m.role === 'assistant' && m.toolCalls.length > 0));
}
