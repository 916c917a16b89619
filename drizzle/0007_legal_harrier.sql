CREATE TABLE "blobs" (
	"sha256" text PRIMARY KEY NOT NULL,
	"size" bigint NOT NULL,
	"data" "bytea" NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "environment_files" (
	"environment_id" bigint NOT NULL,
	"path" text NOT NULL,
	"sha256" text NOT NULL,
	"size" bigint NOT NULL,
	"executable" boolean DEFAULT false NOT NULL,
	CONSTRAINT "environment_files_environment_id_path_pk" PRIMARY KEY("environment_id","path")
);
--> statement-breakpoint
ALTER TABLE "environment_files" ADD CONSTRAINT "environment_files_environment_id_environments_id_fk" FOREIGN KEY ("environment_id") REFERENCES "public"."environments"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "environment_files" ADD CONSTRAINT "environment_files_sha256_blobs_sha256_fk" FOREIGN KEY ("sha256") REFERENCES "public"."blobs"("sha256") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "environment_files_sha_idx" ON "environment_files" USING btree ("sha256");