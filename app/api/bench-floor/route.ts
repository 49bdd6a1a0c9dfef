import { createBenchFloor } from "@/lib/bench-floor";

// The framework's floor for `npm run bench` (lib/bench-floor.ts): 404 unless LWC_BENCH_FLOOR=1.
export const runtime = "nodejs";
export const dynamic = "force-dynamic";

const floor = createBenchFloor(process.env);
export const GET = floor;
export const HEAD = floor;
export const POST = floor;
export const PUT = floor;
export const PATCH = floor;
export const DELETE = floor;
export const OPTIONS = floor;
