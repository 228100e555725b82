// The handler of createCommandHandler is typed per command: a test reads a body without a cast.
import { describe, expectTypeOf, it } from "vitest";
import { createCommandHandler } from "./handler.js";
import type { CommandHandler } from "./handler-types.js";
import { createMemoryBackend } from "./memory/memory-backend.js";
import type { TypedCommandResponse } from "./typed-handler.js";
import type * as wire from "./wire.js";

const handler = createCommandHandler(createMemoryBackend());
const envelope = { Username: "alice", Site: "HQ", CommandParams: {} };
const caller = { username: "alice" };

describe("createCommandHandler's response types", () => {
  it("types the 200 body of each command by its name", async () => {
    const timeline = await handler("GetIncidentTimelineEntries", envelope, caller);
    expectTypeOf(timeline).toEqualTypeOf<TypedCommandResponse<"GetIncidentTimelineEntries">>();
    if (timeline.status === 200) {
      expectTypeOf(timeline.body).toEqualTypeOf<wire.TimelineResponseBody>();
      if (timeline.body.returnData.Status === "Successful") {
        expectTypeOf(timeline.body.returnData.Data).toEqualTypeOf<readonly wire.TimelineEntryData[]>();
      }
    } else {
      expectTypeOf(timeline.body).toEqualTypeOf<wire.ErrorResponseBody>();
      expectTypeOf(timeline.status).toEqualTypeOf<400 | 401 | 404 | 500 | 503>();
    }
    const trigger = await handler("TriggerIncidentExternalAction", envelope, caller);
    if (trigger.status === 200 && trigger.body.returnData.Status === "Successful") {
      expectTypeOf(trigger.body.returnData.Data).toEqualTypeOf<wire.TriggeredIncidentData>();
    }
    const notes = await handler("AddNotesToArtifacts", envelope, caller);
    if (notes.status === 200) expectTypeOf(notes.body).toEqualTypeOf<wire.AddNotesResponseBody>();
  });

  it("gives any command's body for another spelling, and unknown for a plain string", async () => {
    const lower = await handler("getincidenttimelineentries", envelope, caller);
    if (lower.status === 200) {
      expectTypeOf(lower.body).toEqualTypeOf<
        wire.TimelineResponseBody | wire.TriggerResponseBody | wire.AddNotesResponseBody
      >();
    }
    const name: string = "GetIncidentTimelineEntries";
    const any = await handler(name, envelope, caller);
    if (any.status === 200) expectTypeOf(any.body).toEqualTypeOf<unknown>();
  });

  it("is a CommandHandler (what createServer and the client accept)", () => {
    expectTypeOf(handler).toExtend<CommandHandler>();
  });
});
