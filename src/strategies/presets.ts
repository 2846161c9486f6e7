/**
 * Presets: a strategy with the parameters a system in the field runs (shared/design/anchors.md), so a
 * user can reproduce what they run in production. `--preset NAME` selects one; `--param` still
 * overrides its values.
 */
import type { ParamValue } from '../runner/types.js';

export interface Preset {
  readonly name: string;
  /** The strategy it configures. */
  readonly strategy: string;
  readonly params: Readonly<Record<string, ParamValue>>;
  readonly summary: string;
  /** Where the settings come from (paper, source file, docs). */
  readonly source: string;
}

/** One entry per preset; the registry test checks every one against its strategy's parameters. */
export const PRESETS: Readonly<Record<string, Preset>> = {};
