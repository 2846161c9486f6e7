/**
 * A scenario built to inject script into the report: markup and script-closing tags in its title,
 * tool names, call ids, tool outputs and planted facts, long enough that strategies mask, offload
 * and summarize it (so the markup also reaches event details, summaries and probe answers). Each
 * payload sets a different window.__pwned value, so a test that finds one set knows which leaked.
 */
import type { ScenarioFile } from '../../src/scenarios/schema.js';

const payload = (n: number): string =>
  `</script><script>window.__pwned=${n}</script><img src=x onerror="window.__pwned=${n + 100}"><!-- \u2028\u2029 <svg onload="window.__pwned=${n + 200}">`;

export const HOSTILE_SCENARIO_ID = 'report-injection';
export const HOSTILE_SCENARIO_TITLE = `Injection ${payload(1)}`;

export function hostileScenario(steps = 24): ScenarioFile {
  const fact = `</script><script>window.__pwned=9</script>`;
  const messages: ScenarioFile['messages'] = [
    { role: 'system', content: `You are a coding agent. ${payload(2)}` },
    { role: 'user', content: `Fix the parser. ${payload(3)}` },
  ];
  for (let i = 0; i < steps; i++) {
    const id = `call-${i}-${payload(4)}`;
    const name = i % 3 === 0 ? `bash${payload(5)}` : 'bash';
    // ~3k tokens per output: a 16k window fills within a few steps.
    const filler = `line ${i}: value=${1000 + i} ${payload(6)}\n`.repeat(60);
    messages.push(
      { role: 'assistant', content: `Step ${i}: looking at src/parser_${i}.py ${payload(7)}`, toolCalls: [{ id, name, arguments: JSON.stringify({ command: `cat src/parser_${i}.py # ${payload(8)}` }) }] },
      { role: 'tool', toolCallId: id, name, content: `${i === 1 ? `the secret is ${fact}\n` : ''}${filler}` },
    );
  }
  messages.push({ role: 'assistant', content: `Done. ${payload(10)}` });
  return {
    ctxbench: 1,
    id: HOSTILE_SCENARIO_ID,
    title: HOSTILE_SCENARIO_TITLE,
    description: payload(11),
    model: { name: 'gpt-4o' },
    outcome: 'unresolved',
    probes: [{ id: `probe-${payload(12)}`, step: steps - 2, question: `What is the secret? ${payload(13)}`, answer: fact }],
    messages,
  };
}
