/**
 * The ctxbench scenario file format (JSON or YAML), version 1. README "Scenario files" documents it;
 * this schema is the single source of truth for what a file may hold.
 */
import { z } from 'zod';
import type { FileKind } from '../core/output-file.js';
import { MAX_TOKEN_COUNT } from '../core/tokens.js';

const usage = z
  .object({
    promptTokens: z.number().int().nonnegative().optional(),
    completionTokens: z.number().int().nonnegative().optional(),
    cachedTokens: z.number().int().nonnegative().optional(),
    reasoningTokens: z.number().int().nonnegative().optional(),
  })
  .strict();

const toolCall = z
  .object({
    id: z.string().min(1),
    name: z.string().min(1),
    // JSON text; an object is accepted and stringified, as Ollama sends arguments.
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).default('{}'),
  })
  .strict();

const system = z.object({ role: z.literal('system'), content: z.string() }).strict();
const user = z.object({ role: z.literal('user'), content: z.string() }).strict();
const assistant = z
  .object({
    role: z.literal('assistant'),
    content: z.string().default(''),
    toolCalls: z.array(toolCall).default([]),
    usage: usage.optional(),
  })
  .strict();
const tool = z
  .object({
    role: z.literal('tool'),
    toolCallId: z.string().min(1),
    name: z.string().optional(),
    content: z.string(),
  })
  .strict();

/** A tool the agent may call, as its requests declare it (OpenAI function tools, Anthropic tools). */
export const toolSchema = z
  .object({
    name: z.string().min(1),
    description: z.string().optional(),
    /** The JSON Schema of its arguments. */
    parameters: z.record(z.string(), z.unknown()).optional(),
  })
  .strict();

export const messageSchema = z.discriminatedUnion('role', [system, user, assistant, tool]);

/**
 * A fact the task needs later, asked before agent step `step` (0-based): it passes when `answer` is
 * still answerable from the context sent at that step (design DEFINITION "Success").
 */
export const probeSchema = z
  .object({
    id: z.string().min(1),
    step: z.number().int().nonnegative(),
    question: z.string().min(1),
    answer: z.string().min(1),
  })
  .strict();

/** The longest scenario id: it names runs and, on import to a folder, a file. */
export const MAX_ID_LENGTH = 200;

export const scenarioFileSchema = z
  .object({
    ctxbench: z.literal(1),
    // It names runs and, on import to a folder, a file: a plain name a file system takes.
    id: z.string().max(MAX_ID_LENGTH, `at most ${MAX_ID_LENGTH} characters`).regex(/^[A-Za-z0-9._:@+-]+$/, 'letters, digits and . _ : @ + - only'),
    title: z.string().optional(),
    description: z.string().optional(),
    source: z
      .object({
        format: z.string(),
        agent: z.string().optional(),
        file: z.string().optional(),
        url: z.string().optional(),
        license: z.string().optional(),
        notes: z.string().optional(),
      })
      .strict()
      .optional(),
    model: z
      .object({
        name: z.string().min(1),
        contextWindow: z.number().int().positive().max(MAX_TOKEN_COUNT, `at most ${MAX_TOKEN_COUNT} tokens (what the results database stores)`).optional(),
      })
      .strict(),
    /** The recorded task's real result, carried for slicing (e.g. resolved / unresolved). */
    outcome: z.string().optional(),
    tags: z.array(z.string()).default([]),
    probes: z.array(probeSchema).default([]),
    /** The tool definitions every agent request sends (billed with each request); optional. */
    tools: z.array(toolSchema).optional(),
    messages: z.array(messageSchema).min(2, 'a scenario needs at least a prompt and one assistant turn'),
  })
  .strict();

export type ScenarioFile = z.input<typeof scenarioFileSchema>;
export type ParsedScenarioFile = z.output<typeof scenarioFileSchema>;
export type ScenarioFileMessage = z.input<typeof messageSchema>;
export type Probe = z.output<typeof probeSchema>;

/**
 * A scenario file, by its version field first: JSON (each JSONL line too) opening with `"ctxbench"`,
 * as `bench scenarios gen` and `import` write it, or YAML whose first key (after comments) is `ctxbench:`.
 */
export const SCENARIO_FILE: FileKind = {
  name: 'a scenario',
  matches: (head) => /^(?:\s*\{\s*"ctxbench"\s*|(?:(?:---|#.*)?[ \t]*\r?\n)*ctxbench):\s*\d/.test(head.toString('utf8')),
};
