/**
 * The live backends' defaults that flags and help texts show: where the servers are, how many
 * requests go out at once, where the record/replay cache lives. Without imports, so `bench --help`
 * shows them without loading the clients.
 */

/** Ollama's own default address (OLLAMA_HOST unset). */
export const OLLAMA_DEFAULT_HOST = 'http://127.0.0.1:11434';

/** OpenAI's API (OPENAI_BASE_URL unset). */
export const OPENAI_DEFAULT_BASE_URL = 'https://api.openai.com/v1';

/** The cache directory, relative to the current directory, when none is given. */
export const DEFAULT_CACHE_DIR = '.ctxbench-cache';

/** Requests in flight at once (-j): a local Ollama is usually busy with one; OpenAI-compatible servers take several. */
export const LIVE_CONCURRENCY = { ollama: 1, openai: 4 } as const;
