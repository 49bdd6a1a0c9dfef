CREATE TABLE "history_accounts" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "history_accounts_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"key" text NOT NULL,
	"sealed_account" "bytea" NOT NULL,
	"seq" bigint DEFAULT 0 NOT NULL,
	"cleared_seq" bigint DEFAULT 0 NOT NULL,
	"bytes" bigint DEFAULT 0 NOT NULL,
	"instructions" "bytea",
	"instructions_rev" bigint DEFAULT 0 NOT NULL,
	"instructions_seq" bigint DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "history_accounts_key_unique" UNIQUE("key")
);
--> statement-breakpoint
CREATE TABLE "history_conversations" (
	"account_id" bigint NOT NULL,
	"id" text NOT NULL,
	"seq" bigint NOT NULL,
	"deleted" boolean DEFAULT false NOT NULL,
	"sealed_title" "bytea",
	"title_edited" boolean DEFAULT false NOT NULL,
	"title_rev" bigint DEFAULT 0 NOT NULL,
	"pinned" boolean DEFAULT false NOT NULL,
	"pinned_rev" bigint DEFAULT 0 NOT NULL,
	"archived" boolean DEFAULT false NOT NULL,
	"archived_rev" bigint DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL,
	"updated_at" bigint NOT NULL,
	"size" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "history_conversations_account_id_id_pk" PRIMARY KEY("account_id","id")
);
--> statement-breakpoint
CREATE TABLE "history_messages" (
	"account_id" bigint NOT NULL,
	"conversation_id" text NOT NULL,
	"id" text NOT NULL,
	"parent_id" text,
	"role" text NOT NULL,
	"seq" bigint NOT NULL,
	"rev" bigint NOT NULL,
	"deleted" boolean DEFAULT false NOT NULL,
	"sealed_body" "bytea",
	"size" integer DEFAULT 0 NOT NULL,
	"created_at" bigint NOT NULL,
	CONSTRAINT "history_messages_account_id_conversation_id_id_pk" PRIMARY KEY("account_id","conversation_id","id")
);
--> statement-breakpoint
CREATE TABLE "history_shares" (
	"id" text PRIMARY KEY NOT NULL,
	"account_id" bigint NOT NULL,
	"conversation_id" text NOT NULL,
	"sealed_snapshot" "bytea" NOT NULL,
	"size" integer NOT NULL,
	"created_at" bigint NOT NULL
);
--> statement-breakpoint
ALTER TABLE "history_conversations" ADD CONSTRAINT "history_conversations_account_id_history_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."history_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "history_messages" ADD CONSTRAINT "history_messages_account_id_history_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."history_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "history_shares" ADD CONSTRAINT "history_shares_account_id_history_accounts_id_fk" FOREIGN KEY ("account_id") REFERENCES "public"."history_accounts"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "history_conversations_seq" ON "history_conversations" USING btree ("account_id","seq");--> statement-breakpoint
CREATE INDEX "history_messages_seq" ON "history_messages" USING btree ("account_id","seq");--> statement-breakpoint
CREATE INDEX "history_shares_account" ON "history_shares" USING btree ("account_id","conversation_id");