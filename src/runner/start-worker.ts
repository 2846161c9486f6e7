/**
 * Starts a worker thread on a module that sits next to its caller: compiled JS under dist/, the
 * TypeScript source under vitest or tsx. A worker thread does not inherit tsx's hooks (tsx registers
 * them on the main thread only), so a .ts worker registers them itself before importing its module.
 */
import { Worker, type ResourceLimits } from 'node:worker_threads';

/** `entry`: the module's URL with the caller's extension (`new URL('./x.' + ext, import.meta.url)`). */
export function startWorker(entry: URL, workerData: unknown, resourceLimits?: ResourceLimits): Worker {
  if (!entry.href.endsWith('.ts')) return new Worker(entry, { workerData, resourceLimits });
  const tsx = import.meta.resolve('tsx/esm/api');
  const bootstrap = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { eval: true, workerData, resourceLimits });
}

/** The extension of the caller's own module (pass its import.meta.url): where its sibling worker module is. */
export const moduleExtension = (url: string): 'ts' | 'js' => (url.endsWith('.ts') ? 'ts' : 'js');
