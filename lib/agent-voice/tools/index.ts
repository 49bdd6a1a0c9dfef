import "server-only";
/** The reference app's tools: the example to copy for your own. */
import { createConfirmTool } from "./confirm-tool";
import { getCurrentTime } from "./get-current-time";
import { saveNote } from "./save-note";

export const referenceTools = [getCurrentTime, saveNote];
export const referenceConfirmTool = createConfirmTool(referenceTools);
