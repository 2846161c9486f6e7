import { describe, expect, it } from 'vitest';
import { userMessage, type Message } from '../core/messages.js';
import type { AuxiliaryLlm, AuxiliaryResponse, RequestPlan } from '../core/strategy.js';
import { RunEnded } from './run-log.js';
import { createHookClock, createStrategyGuard, overdueHook, timeoutFailure } from './strategy-guard.js';

const TASK = userMessage({ id: 'u0', content: 'fix the bug' });
const guard = (timeoutMs = 1000) => createStrategyGuard({ strategy: 'mine', timeoutMs });

/** How the guarded call ended: the run's status and failure, or 'ok'. */
async function ending(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'ok';
  } catch (error) {
    expect(error).toBeInstanceOf(RunEnded);
    const ended = error as RunEnded;
    expect(ended.failure).not.toContain('\n');
    return `${ended.status}: ${ended.failure}`;
  }
}

describe('strategy guard', () => {
  describe('what a hook throws', () => {
    it('ends the run with status error, naming the strategy, the hook and the step', async () => {
      const thrown = guard().beforeRequest(7, () => {
        throw new Error('boom\n    at somewhere');
      });
      expect(await ending(thrown)).toBe('error: strategy mine, beforeRequest at step 7: threw: boom');
    });

    it('passes a run ending of the runner through (an agent request the pairing check refused)', async () => {
      const refused = guard().afterResponse(2, () => Promise.reject(new RunEnded('invalid_context', 'agent request: ...')));
      expect(await ending(refused)).toBe('invalid_context: agent request: ...');
    });

    it('names create when the run cannot be made', async () => {
      expect(await ending(guard().create(() => ({}) as never))).toBe('error: strategy mine, create at step 0: returned no { beforeRequest } run');
    });
  });

  describe('malformed plans', () => {
    it.each([
      ['no plan', undefined, 'returned no plan ({ messages })'],
      ['no list', { messages: 'hi' }, 'returned no message list (plan.messages)'],
      ['not a message', { messages: [TASK, 42] }, 'returned a malformed message: messages[1] is not a message'],
      ['a role of none', { messages: [{ ...TASK, role: 'robot' }] }, 'messages[0] has role "robot"'],
      ['content not text', { messages: [{ ...TASK, content: ['a'] }] }, 'messages[0] has no string content'],
      ['no origin', { messages: [{ role: 'user', id: 'x', content: 'c' }] }, 'messages[0] has no origin'],
      ['bad tool calls', { messages: [{ ...TASK, role: 'assistant', toolCalls: [{ id: 1 }] }] }, 'messages[0] has malformed toolCalls'],
      ['a tool result without its call id', { messages: [{ ...TASK, role: 'tool', name: 'bash' }] }, 'messages[0] has no string toolCallId and name'],
    ])('%s: error naming the message', async (_name, plan, problem) => {
      const failure = await ending(guard().beforeRequest(3, () => plan as unknown as RequestPlan));
      expect(failure).toMatch(/^error: strategy mine, beforeRequest at step 3: returned /);
      expect(failure).toContain(problem);
    });

    it('checks what was added to a list it checked before, whether the list comes back itself or copied', async () => {
      const bad = { ...TASK, id: 'b', role: 'robot' };
      for (const again of [(list: unknown[]) => list, (list: unknown[]) => [...list]]) {
        const g = guard();
        const own: unknown[] = [TASK];
        expect(await ending(g.beforeRequest(0, () => ({ messages: own }) as RequestPlan))).toBe('ok');
        own.push(bad); // the strategy's own array, grown in place after it was sent
        expect(await ending(g.beforeRequest(1, () => ({ messages: again(own) }) as RequestPlan))).toContain('returned a malformed message: messages[1] has role "robot"');
      }
    });

    it('checks a message put in place of one it checked, in the same array', async () => {
      const g = guard();
      const own: unknown[] = [TASK, userMessage({ id: 'u1', content: 'more' })];
      expect(await ending(g.beforeRequest(0, () => ({ messages: own }) as RequestPlan))).toBe('ok');
      own[0] = { ...TASK, content: 42 };
      expect(await ending(g.beforeRequest(1, () => ({ messages: own }) as RequestPlan))).toContain('messages[0] has no string content');
    });

    it('accepts afterResponse carrying on (undefined) and a well-formed plan', async () => {
      const g = guard();
      expect(await g.afterResponse(0, () => undefined)).toBeUndefined();
      expect(await g.beforeRequest(0, () => ({ messages: [TASK] }))).toEqual({ messages: [TASK] });
    });
  });

  describe('hooks that do not answer', () => {
    it('ends a promise that never settles after the timeout', async () => {
      const hung = guard(50).beforeRequest(4, () => new Promise<RequestPlan>(() => {}));
      expect(await ending(hung)).toBe(`error: ${timeoutFailure('mine', 'beforeRequest', 4, 50)}`);
    });

    it('does not count the time an auxiliary call takes against the strategy', async () => {
      const g = guard(60);
      const slowLlm: AuxiliaryLlm = () => new Promise<AuxiliaryResponse>((resolve) => setTimeout(() => resolve({ text: 's' } as AuxiliaryResponse), 150));
      const llm = g.llm(slowLlm);
      const plan = g.beforeRequest(1, async () => {
        await llm({ messages: [TASK], purpose: 'summary' });
        return { messages: [TASK] as readonly Message[] };
      });
      expect(await ending(plan)).toBe('ok');
    });

    it('publishes the call in progress on a clock another thread reads (a synchronous loop stops this one)', async () => {
      const clock = createHookClock();
      const g = createStrategyGuard({ strategy: 'mine', timeoutMs: 1000, clock });
      let seen: ReturnType<typeof overdueHook>;
      await g.afterResponse(9, () => {
        seen = overdueHook(clock, 1000, Date.now() + 5000);
        return undefined;
      });
      expect(seen).toEqual({ hook: 'afterResponse', step: 9 });
      expect(overdueHook(clock, 1000, Date.now() + 5000)).toBeUndefined();
    });

    it('ends a run the watchdog already stopped at create, with its failure', async () => {
      const failure = timeoutFailure('mine', 'beforeRequest', 12, 1000);
      const g = createStrategyGuard({ strategy: 'mine', timeoutMs: 1000, preempted: failure });
      expect(await ending(g.create(() => ({ beforeRequest: () => ({ messages: [] }) })))).toBe(`error: ${failure}`);
    });
  });
});
