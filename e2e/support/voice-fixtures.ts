import { test as base } from "../fixtures";
import { VoicePage } from "../pages/voice-page";
import { signInThroughControlApi } from "./sign-in";
import { installVoiceProbe } from "./voice-probe";

/** The e2e fixtures plus `voice`: signed in, with the WebRTC probe installed before the app loads. */
export const test = base.extend<{ voice: VoicePage }>({
  voice: async ({ page, mock, account }, provide) => {
    await installVoiceProbe(page);
    await signInThroughControlApi(page, mock, account);
    await provide(new VoicePage(page));
  },
});

export { expect } from "@playwright/test";
