import { signInHandler } from "@/lib/auth/browser";

export const dynamic = "force-dynamic";

export const POST = signInHandler;
