// The artifact note result (specification 2.5, 4.3): pure, the time is passed in.
export type { ArtifactNoteContextItem, ArtifactNoteInput, ArtifactNoteResult } from "./note-result.js";
export {
  buildArtifactNoteResult,
  formatLocalDate,
  isValidTimeZone,
  LOCAL_DATE_PATTERN,
  NOTE_RESULT_COLUMNS,
  NOTE_RESULT_SUCCESS,
  renderNoteResultTable,
} from "./note-result.js";
