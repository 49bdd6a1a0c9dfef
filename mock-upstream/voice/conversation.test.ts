import { describe, expect, it } from "vitest";
import { Conversation, type RealtimeEvent } from "./conversation";

function conversation() {
  const sent: RealtimeEvent[] = [];
  const talk = new Conversation({ send: (event) => sent.push(event), setSpeaking: () => undefined }, {}, 1);
  return { talk, sent, types: () => sent.map((event) => event.type) };
}

describe("a request the person says in an agent call (personSays)", () => {
  it("announces the spoken turn at once and sends its words only when told", async () => {
    const { talk, sent, types } = conversation();
    const transcribe = talk.personSays("What time is it?");
    expect(types()).toEqual(["input_audio_buffer.speech_started", "input_audio_buffer.speech_stopped", "input_audio_buffer.committed", "conversation.item.added"]);
    const itemId = (sent[3]!.item as { id: string }).id;

    transcribe();
    await expect.poll(() => types().at(-1)).toBe("conversation.item.input_audio_transcription.completed");
    const words = sent.filter((event) => event.type === "conversation.item.input_audio_transcription.delta").map((event) => event.delta).join("");
    expect(words).toBe("What time is it?");
    expect(sent.at(-1)).toMatchObject({ item_id: itemId, transcript: "What time is it?" });
    talk.close();
  });

  it("sends no words after the call closed", () => {
    const { talk, types } = conversation();
    const transcribe = talk.personSays("Too late");
    talk.close();
    transcribe();
    expect(types().at(-1)).toBe("conversation.item.added");
  });
});
