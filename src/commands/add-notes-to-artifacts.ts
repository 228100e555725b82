/**
 * AddNotesToArtifacts (specification 2.5, 4.3; docs/semantics.md 3.3): adds a note to the artifact of the
 * request's site named exactly `Artifact Name`, optionally of a given type.
 */

import { buildArtifactNoteResult } from "../artifacts/note-result.js";
import type { ArtifactInfo, ArtifactTypeInfo } from "./backend.js";
import type { CommandContext, CommandDefinition } from "./command-context.js";
import { ParamReader } from "./envelope.js";
import { addNotesFailure, addNotesSuccess } from "./responses.js";
import { unstorableCharacter } from "./unstorable-text.js";

const NAME = "Artifact Name";
const TYPE = "Artifact Type";
const NOTE = "Note";
/** The command's parameters (docs/semantics.md 3.3). */
const PARAMETERS = [NAME, TYPE, NOTE] as const;
/** At most this many types are listed in an "unknown type" message. */
const LISTED_TYPES = 20;

/**
 * Runs AddNotesToArtifacts.
 * Parameters: `Artifact Name` (string, required, exact), `Artifact Type` (the type's integer id, or its
 * label compared ignoring case and surrounding spaces, or a string of digits naming an id; absent or `null`
 * is omitted, while an empty or blank string is an error naming the accepted ids and labels, docs/semantics.md
 * 3.3), `Note` (a non-empty string, white space alone included, kept exactly, at most the handler's `maxNoteLength`, without U+0000 or an
 * unpaired surrogate: docs/semantics.md 3.3, "Text that no store keeps").
 * The note is stored with the caller as author and the backend's time.
 * @returns 200 body: success with the HTML `result` and one context item (type label, local date in the
 *   site's time zone), or failure with a message: a missing or ill-typed parameter, an unknown type,
 *   `Artifact 'X' was not found in site 'S'.`, or, when several artifacts share the name and no type is
 *   given, a message listing their types and asking for `Artifact Type`
 */
export async function addNotesToArtifacts(context: CommandContext): Promise<unknown> {
  const params = new ParamReader(context.params, PARAMETERS);
  const name = params.requiredString(NAME);
  const rawType = params.raw(TYPE);
  let typeRef: number | string | undefined;
  if (typeof rawType === "number") {
    if (Number.isSafeInteger(rawType) && rawType >= 0) typeRef = rawType;
    else params.invalid(TYPE, "an integer type id or a type label", rawType);
  } else if (typeof rawType === "string") {
    if (rawType.trim() !== "") typeRef = rawType.trim();
    else params.problems.push(blankTypeMessage(await context.backend.artifactTypes()));
  } else if (rawType !== undefined) {
    params.invalid(TYPE, "an integer type id or a type label", rawType);
  }
  // "A non-empty string" (docs/semantics.md 3.3): white space alone is a note, kept as sent.
  const note = params.requiredString(NOTE, { allowBlank: true });
  if (note !== undefined && note.length > context.options.maxNoteLength) {
    params.problems.push(
      `Parameter '${NOTE}' must be at most ${context.options.maxNoteLength} characters, found ${note.length}.`,
    );
  }
  const unstorable = note === undefined ? undefined : unstorableCharacter(note);
  if (unstorable !== undefined) {
    params.problems.push(`Parameter '${NOTE}' must not hold ${unstorable}: no store keeps it as sent.`);
  }
  if (name === undefined || note === undefined || params.problems.length > 0) {
    return addNotesFailure(params.message());
  }

  const site = context.site.name;
  const types = await context.backend.artifactTypes();
  let type: ArtifactTypeInfo | undefined;
  if (typeRef !== undefined) {
    type = resolveType(types, typeRef);
    if (type === undefined) return addNotesFailure(unknownTypeMessage(types, typeRef));
  }
  const named = await context.backend.findArtifacts(site, name);
  const candidates = type === undefined ? named : named.filter((a) => a.typeId === type.id);
  if (candidates.length === 0) {
    return addNotesFailure(
      type === undefined || named.length === 0
        ? `Artifact '${name}' was not found in site '${site}'.`
        : `Artifact '${name}' of type '${type.label}' was not found in site '${site}' (it exists with the type ${listTypes(types, named)}).`,
    );
  }
  if (candidates.length > 1) {
    return addNotesFailure(
      `Several artifacts are named '${name}' in site '${site}' (types ${listTypes(types, candidates)}): set '${TYPE}' to choose one.`,
    );
  }
  const artifact = candidates[0]!;
  const stored = await context.backend.appendNote(artifact, { text: note, author: context.username });
  const built = buildArtifactNoteResult({
    artifactName: artifact.name,
    artifactTypeLabel: labelOf(types, artifact.typeId),
    note,
    time: stored.time.getTime(),
    timeZone: context.site.timeZone,
  });
  return addNotesSuccess(built.result, built.contextItem);
}

/** An integer is an id; a string is a label (ignoring case), else a string of digits is an id. */
function resolveType(types: readonly ArtifactTypeInfo[], ref: number | string): ArtifactTypeInfo | undefined {
  if (typeof ref === "number") return types.find((t) => t.id === ref);
  const lower = ref.toLowerCase();
  const byLabel = types.find((t) => t.label.trim().toLowerCase() === lower);
  if (byLabel !== undefined) return byLabel;
  return /^\d{1,15}$/.test(ref) ? types.find((t) => t.id === Number(ref)) : undefined;
}

function labelOf(types: readonly ArtifactTypeInfo[], id: number): string {
  return types.find((t) => t.id === id)?.label ?? String(id);
}

function listTypes(types: readonly ArtifactTypeInfo[], artifacts: readonly ArtifactInfo[]): string {
  return artifacts.map((a) => `'${labelOf(types, a.typeId)}'`).join(", ");
}

/** The problem of an empty or blank `Artifact Type` (docs/semantics.md 3.3: not an omission). */
function blankTypeMessage(types: readonly ArtifactTypeInfo[]): string {
  return types.length === 0
    ? `Parameter '${TYPE}' must not be empty (the service has no artifact types: leave the parameter out).`
    : `Parameter '${TYPE}' must not be empty: expected one of ${listedTypes(types)} (or leave the parameter out).`;
}

/** `1 'IP Address', 2 'Domain', …`: at most LISTED_TYPES types, then `and N more`. */
function listedTypes(types: readonly ArtifactTypeInfo[]): string {
  const shown = types.slice(0, LISTED_TYPES).map((t) => `${t.id} '${t.label}'`);
  if (types.length > LISTED_TYPES) shown.push(`and ${types.length - LISTED_TYPES} more`);
  return shown.join(", ");
}

function unknownTypeMessage(types: readonly ArtifactTypeInfo[], ref: number | string): string {
  const what = typeof ref === "number" ? `id ${ref}` : `'${ref}'`;
  return types.length === 0
    ? `Artifact type ${what} is not known: the service has no artifact types.`
    : `Artifact type ${what} is not known: expected one of ${listedTypes(types)}.`;
}

/** The command's definition for the handler. */
export const ADD_NOTES_TO_ARTIFACTS: CommandDefinition = {
  name: "AddNotesToArtifacts",
  parameters: PARAMETERS,
  run: addNotesToArtifacts,
  failure: addNotesFailure,
};
