import { describe, expect, it } from "vitest";
import { describeHistorySetting, historySettingFromEnv } from "./config";

describe("where the chat history lives", () => {
  it("Postgres from DATABASE_URL, else POSTGRES_URL (Vercel's Marketplace Postgres)", () => {
    expect(historySettingFromEnv({ DATABASE_URL: "postgres://a@db/x", POSTGRES_URL: "postgres://b@db/y" })).toEqual({ on: true, location: { engine: "postgres", url: "postgres://a@db/x" } });
    expect(historySettingFromEnv({ POSTGRES_URL: "postgres://b@db/y", VERCEL: "1" })).toEqual({ on: true, location: { engine: "postgres", url: "postgres://b@db/y" } });
  });

  it("the embedded database in LWC_DATA_DIR, default .data in the app's folder, on a long-lived server", () => {
    expect(historySettingFromEnv({}, "/srv/app")).toEqual({ on: true, location: { engine: "embedded", dataDir: "/srv/app/.data" } });
    expect(historySettingFromEnv({ LWC_DATA_DIR: "/var/lib/chat" }, "/srv/app")).toEqual({ on: true, location: { engine: "embedded", dataDir: "/var/lib/chat" } });
    expect(historySettingFromEnv({ LWC_DATA_DIR: "state" }, "/srv/app")).toEqual({ on: true, location: { engine: "embedded", dataDir: "/srv/app/state" } });
  });

  it("off with LWC_CHAT_HISTORY=browser anywhere, and on Vercel without a database", () => {
    expect(historySettingFromEnv({ LWC_CHAT_HISTORY: "browser", DATABASE_URL: "postgres://a@db/x" })).toEqual({ on: false, reason: "turned_off" });
    expect(historySettingFromEnv({ LWC_CHAT_HISTORY: " Browser " })).toEqual({ on: false, reason: "turned_off" });
    expect(historySettingFromEnv({ VERCEL: "1" })).toEqual({ on: false, reason: "no_database_on_vercel" });
  });

  it("says where in one log line, never with the URL's password", () => {
    const line = describeHistorySetting(historySettingFromEnv({ DATABASE_URL: "postgres://user:hunter2@db.example:5432/chat" }));
    expect(line).toBe("chat history: Postgres at db.example:5432");
    expect(describeHistorySetting({ on: false, reason: "no_database_on_vercel" })).toMatch(/Marketplace/);
  });
});
