/**
 * The words the made-up repository and its outputs are built from. Filler text draws only from the
 * filler lists; planted facts use FACT_WORDS, which filler never uses (a test checks the lists are
 * disjoint), so a fact's answer shows up only where it was planted.
 */

export const PROJECTS = ['ledgerline', 'quillmark', 'tidepool', 'brightforge', 'copperleaf', 'paperkite', 'saltmarsh', 'emberflow', 'fernhollow', 'riverbend'];
export const MODULES = [
  'billing', 'invoices', 'ledger', 'cache', 'scheduler', 'auth', 'sessions', 'retry', 'http_client', 'parser',
  'serializer', 'metrics', 'queue', 'worker', 'storage', 'settings', 'events', 'webhooks', 'accounts', 'reports',
  'exporter', 'pagination', 'rate_limit', 'audit', 'notifications', 'search', 'sync', 'migrations', 'utils', 'validators',
];
export const SUBPACKAGES = ['core', 'api', 'services', 'models', 'utils', 'workers', 'adapters'];
export const VERBS = ['load', 'parse', 'build', 'resolve', 'apply', 'compute', 'flush', 'fetch', 'merge', 'normalize', 'validate', 'render', 'dispatch', 'schedule', 'encode', 'decode', 'collect', 'register', 'emit', 'refresh'];
export const NOUNS = ['config', 'batch', 'entry', 'header', 'payload', 'session', 'token', 'record', 'window', 'snapshot', 'cursor', 'page', 'event', 'invoice', 'schema', 'limit', 'policy', 'result', 'account', 'message'];
export const CLASS_SUFFIXES = ['Manager', 'Client', 'Store', 'Builder', 'Parser', 'Policy', 'Worker', 'Registry', 'Handler', 'Adapter'];
export const ERRORS = ['ValueError', 'KeyError', 'TypeError', 'RuntimeError', 'LookupError'];
export const TS_ERRORS = ['Error', 'TypeError', 'RangeError'];
export const VARS = ['items', 'result', 'payload', 'entry', 'batch', 'key', 'value', 'cursor', 'session', 'record', 'options', 'limit', 'offset', 'token', 'headers', 'retries', 'deadline', 'chunk', 'buffer', 'state'];
export const PHRASES = [
  'skip entries that were already flushed', 'keep the original ordering', 'the cursor may be stale here', 'avoid a second round trip',
  'normalize before comparing', 'fall back to the default policy', 'empty batches are valid', 'retry once on a transient error',
  'this must stay backwards compatible', 'guard against a missing header', 'cache the parsed schema', 'release the lock before returning',
  'only the first page is cached', 'see the migration notes', 'payload may be None for deletes', 'do not log the token',
];
export const UNICODE_PHRASES = ['naïve datetime → aware datetime', 'café menu — price list', 'résumé parser (Ünïcödé safe)', '日本語のテキストを処理する', 'emoji payload 🚀 ✓', 'Grüße aus Zürich', 'Ωmega limit ≤ threshold', 'naïve façade — déjà vu'];
export const CONFIG_KEYS = ['max_connections', 'log_level', 'pool_size', 'timeout_seconds', 'enable_tracing', 'region', 'batch_size', 'cache_ttl', 'worker_count', 'strict_mode', 'default_currency', 'page_size', 'retry_attempts', 'feature_flags', 'queue_name', 'sample_rate'];
export const CONFIG_SECTIONS = ['server', 'database', 'cache', 'workers', 'logging', 'billing', 'limits', 'features'];
export const COMMIT_MESSAGES = [
  'Fix flaky pagination test', 'Bump dependencies', 'Refactor cache invalidation', 'Add metrics for queue depth', 'Handle empty payloads in parser',
  'Document retry policy', 'Split settings loader', 'Speed up ledger export', 'Tidy imports', 'Guard against stale cursors', 'Add audit events for logins',
  'Remove dead code in scheduler', 'Make webhook signatures constant-time', 'Rename session helpers', 'Clamp page size', 'Log slow queries',
];
export const LOG_PATHS = ['/api/v1/invoices', '/api/v1/accounts', '/api/v1/sessions', '/healthz', '/api/v1/reports', '/api/v1/webhooks', '/api/v1/search'];
export const PACKAGES = ['requests', 'pydantic', 'sqlalchemy', 'httpx', 'attrs', 'click', 'rich', 'orjson', 'tenacity', 'structlog'];
export const FACT_WORDS = ['zephyr', 'quokka', 'marlin', 'obsidian', 'juniper', 'tamarind', 'halcyon', 'vesper', 'kestrel', 'lichen', 'saffron', 'tanager', 'wicket', 'nimbus', 'bramble', 'sorrel'];
export const FACT_MEASURES = ['budget', 'ceiling', 'window', 'timeout', 'interval', 'quota', 'threshold', 'horizon'];
export const FACT_UNITS = ['ms', 'us', 'bytes', 'kb', 'count', 'ticks'];

/** Every word filler text draws from (for the disjointness test). */
export const FILLER_WORDS: readonly string[] = [
  ...PROJECTS, ...MODULES, ...SUBPACKAGES, ...VERBS, ...NOUNS, ...VARS, ...CONFIG_KEYS, ...CONFIG_SECTIONS, ...PACKAGES,
  ...PHRASES.flatMap((p) => p.split(' ')), ...COMMIT_MESSAGES.flatMap((p) => p.split(' ')),
];
