/**
 * The preflight of a live backend: one cheap request without retries (LiveBackend.preflight) before
 * the first request a run sends. A server the runs cannot use (down, without the model, refusing the
 * key) then stops them at once with one line, instead of failing every run after its retries.
 */
import { BackendError } from './retry.js';
import type { Backend, ChatRequest, ChatResponse, LiveBackend, ServerInfo } from '../core/backend.js';

/** What a preflight found: the runs may go on (with what the server said about the model), or not. */
export type PreflightVerdict =
  | { readonly ok: true; readonly info: ServerInfo; readonly warning?: string | undefined }
  | { readonly ok: false; readonly error: BackendError };

/**
 * What a failed preflight means for the runs. A busy server (429, 5xx, a cut answer: what the runs'
 * retries are for) only warns. Anything else would fail every run the same way, so the runs stop: a
 * server down or silent, an unknown model (404), a refused key (401, 403), an answer in another protocol.
 */
export function judgePreflightFailure(error: BackendError): PreflightVerdict {
  if (error.retryable && error.kind !== 'unreachable') {
    return { ok: true, info: {}, warning: `the check before the first request failed (${error.message}); the runs retry as usual` };
  }
  return { ok: false, error };
}

/** A live backend whose first request waits for its preflight. */
export interface PreflightedBackend extends Backend {
  /** Runs the preflight now, or returns the verdict of the one that ran: once per backend. */
  check(): Promise<PreflightVerdict>;
}

/**
 * `live`, checked once before its first request (or earlier, by check()). When the check finds the
 * server unusable, that request and every later one fail at once with its error and nothing is sent.
 * `onVerdict` hears the verdict once, before any request waiting for it goes on.
 */
export function preflighted(live: LiveBackend, onVerdict?: (verdict: PreflightVerdict) => void): PreflightedBackend {
  let verdict: Promise<PreflightVerdict> | undefined;
  const judge = async (): Promise<PreflightVerdict> => {
    let found: PreflightVerdict;
    try {
      found = { ok: true, info: await live.preflight() };
    } catch (error) {
      if (!(error instanceof BackendError)) throw error;
      found = judgePreflightFailure(error);
    }
    onVerdict?.(found);
    return found;
  };
  const check = (): Promise<PreflightVerdict> => (verdict ??= judge());
  return {
    name: live.name,
    check,
    async complete(request: ChatRequest): Promise<ChatResponse> {
      const found = await check();
      if (!found.ok) throw found.error;
      return live.complete(request);
    },
  };
}
