/**
 * What every command receives once the envelope is valid and the caller may use the site.
 */

import type { ParseOptions } from "../conditions/options.js";
import type { SearchBudget } from "../incidents/search-budget.js";
import type { Backend, SiteInfo } from "./backend.js";
import type { TriggerDataLimits } from "./trigger-data.js";

/** Handler options after defaults. */
export interface ResolvedCommandOptions {
  readonly parseOptions: ParseOptions;
  readonly triggerDataLimits: TriggerDataLimits;
  readonly maxNoteLength: number;
  /** The first-match search's time budget (docs/semantics.md 1.7); undefined: unbounded. */
  readonly searchBudget: SearchBudget | undefined;
}

/** The context of one command call. */
export interface CommandContext {
  readonly backend: Backend;
  /** The caller's username (equal to the body's `Username`). */
  readonly username: string;
  /** The request's site, which the caller may use. */
  readonly site: SiteInfo;
  /** `CommandParams`. */
  readonly params: Readonly<Record<string, unknown>>;
  readonly options: ResolvedCommandOptions;
}

/** One command: a 200 body for success or command-level failure; rejects only for unexpected failures. */
export interface CommandDefinition {
  readonly name: string;
  /**
   * Every parameter the command reads from `CommandParams`, by its exact name. The handler refuses a key
   * that is a near miss of one of them before the command runs (docs/semantics.md 3.2, "Parameter names"),
   * and the command's `ParamReader` reads no other name.
   */
  readonly parameters: readonly string[];
  run(context: CommandContext): Promise<unknown>;
  /** The 200 failure body with a message (used for "no access to the site"). */
  failure(message: string): unknown;
}
