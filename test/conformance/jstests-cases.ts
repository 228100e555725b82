import type { MatchCase } from "./types.js";

export const jstestsCases: readonly MatchCase[] = [];
