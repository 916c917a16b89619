CREATE TABLE "import_chunks" (
	"import_id" uuid NOT NULL,
	"seq" integer NOT NULL,
	"data" "bytea" NOT NULL,
	CONSTRAINT "import_chunks_import_id_seq_pk" PRIMARY KEY("import_id","seq")
);
--> statement-breakpoint
ALTER TABLE "imports" ADD COLUMN "filename" text;--> statement-breakpoint
ALTER TABLE "imports" ADD COLUMN "bytes" bigint;--> statement-breakpoint
ALTER TABLE "imports" ADD COLUMN "generation" integer;--> statement-breakpoint
ALTER TABLE "imports" ADD COLUMN "finished_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "import_chunks" ADD CONSTRAINT "import_chunks_import_id_imports_id_fk" FOREIGN KEY ("import_id") REFERENCES "public"."imports"("id") ON DELETE cascade ON UPDATE no action;