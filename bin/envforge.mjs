#!/usr/bin/env node
// The `envforge` command: runs cli/main.ts through tsx (TypeScript, tsconfig paths).
import { register } from "tsx/esm/api";

register();
await import("../cli/main.ts");
