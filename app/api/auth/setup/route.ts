import { setupHandler } from "@/lib/auth/browser";

export const dynamic = "force-dynamic";

export const POST = setupHandler;
