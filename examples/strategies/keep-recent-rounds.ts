/**
 * `keep-recent-rounds`: an outside strategy, written against ctxbench's public API only, as a user
 * writes one in their own project (README "Write your own strategy").
 *
 * Once the context reaches `startAt` of the window, it keeps the system prompt, the first user message
 * and the last `keepRounds` tool rounds whole (fewer when they alone would not fit); the results of older tool rounds are replaced by a short
 * placeholder (ids kept, so every call keeps its answer and pairing holds). So that the agent does not
 * forget what it worked on, a note after the first user message lists every file its tool calls
 * touched (the `path`, `file`, ... arguments of the calls, which stay in the context).
 *
 *   bench run --strategy examples/strategies/keep-recent-rounds.ts --window 16k
 *   bench sweep -s examples/strategies/keep-recent-rounds.ts --grid keepRounds=2,4,8 --window 16k
 */
import { defineStrategy, seenToolRounds, strategyOrigin, userMessage, withContent, type Message, type StrategyEvent } from 'ctxbench';

const NAME = 'keep-recent-rounds';
const NOTE_ID = `${NAME}:files`;
/** The tool-call arguments that name a file, as coding agents' tools call them. */
const FILE_ARGUMENTS = ['path', 'file', 'file_path', 'filePath', 'filename', 'target_file'];
/** Fewer than keepRounds rounds are kept only when the context would not fit in this share of the window. */
const FIT = 0.9;

/** The files one assistant turn's calls name, in order. */
function filesNamed(message: Message): string[] {
  if (message.role !== 'assistant') return [];
  return message.toolCalls.flatMap((call) => {
    let args: unknown;
    try {
      args = JSON.parse(call.arguments);
    } catch {
      return []; // arguments are whatever the agent sent: not always JSON
    }
    if (typeof args !== 'object' || args === null) return [];
    return FILE_ARGUMENTS.map((key) => (args as Record<string, unknown>)[key]).filter((v): v is string => typeof v === 'string' && v !== '');
  });
}

export default defineStrategy({
  name: NAME,
  summary: 'Past startAt of the window: system prompt, task and the last K tool rounds kept, older tool results replaced by a placeholder, a note of the files touched.',
  params: {
    /** Default 3: the rounds an agent usually still works from. */
    keepRounds: { kind: 'integer', default: 3, min: 1, max: 1000, description: 'Most recent tool rounds kept whole (default 3).' },
    /** Default 0.5: half the window, early enough that one large result does not overflow it. */
    startAt: { kind: 'fraction', default: 0.5, description: 'Start replacing old results once the context reaches this share of the window (default 0.5).' },
  },
  thresholds: (p) => [{ label: 'startAt', fraction: p.startAt }],
  create(p) {
    // The same placeholder object for a result each time: requests keep a common prefix (prompt caching).
    const placeholders = new WeakMap<Message, Message>();
    const touched = new Set<string>();
    return {
      beforeRequest({ messages, window, counter, appendedFrom }) {
        // The calls stay in the context: the newly appended turns are the only ones to read.
        messages.slice(appendedFrom).flatMap(filesNamed).forEach((file) => touched.add(file));
        if (counter.countContext(messages) < p.startAt * window) return { messages };

        const rounds = seenToolRounds(messages); // oldest first; the latest (unseen) round is not among them
        const out = [...messages];
        const events: StrategyEvent[] = [];
        // The oldest rounds first; past the last K only while the context would not fit (a few huge results).
        let kept = rounds.length;
        for (const [r, { start, end }] of rounds.entries()) {
          if (r >= rounds.length - p.keepRounds && counter.countContext(out) <= FIT * window) break;
          kept = rounds.length - r - 1;
          for (let i = start; i < end; i++) {
            const m = out[i]!;
            if (m.role !== 'tool' || m.origin.source === 'strategy') continue; // a placeholder already
            const placeholder = placeholders.get(m) ?? withContent(m, `[${m.name} output removed: an older round]`, strategyOrigin(NAME, 'placeholder'));
            placeholders.set(m, placeholder);
            out[i] = placeholder;
            events.push({ kind: 'masked', messageId: m.id, detail: `${m.name} output of an older round (${kept} rounds kept)`, tokensBefore: counter.countMessage(m), tokensAfter: counter.countMessage(placeholder) });
          }
        }

        if (touched.size > 0) {
          const text = `Files touched so far (older tool output was removed; read a file again if you need it): ${[...touched].join(', ')}`;
          const at = out.findIndex((m) => m.id === NOTE_ID);
          if (at >= 0 && out[at]!.content !== text) out[at] = withContent(out[at]!, text, strategyOrigin(NAME, 'files-note'));
          const task = out.findIndex((m) => m.role === 'user');
          if (at < 0 && task >= 0) {
            out.splice(task + 1, 0, userMessage({ id: NOTE_ID, content: text, origin: strategyOrigin(NAME, 'files-note') }));
          }
        }
        return { messages: out, events };
      },
    };
  },
});
