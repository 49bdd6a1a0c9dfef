import { createFloor } from "../../../forward";

// The framework's floor for `npm run bench:floor` (../../../forward.ts).
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const floor = createFloor(process.env);
export const GET = floor;
export const POST = floor;
