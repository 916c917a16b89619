import { setupHandler } from "@/lib/api/auth-handlers";

export const dynamic = "force-dynamic";

export const POST = setupHandler;
