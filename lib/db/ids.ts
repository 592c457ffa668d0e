import { randomBytes } from "node:crypto";

/** A row id chosen before the insert (storage keys are named after rows): 96 random bits, hex. */
export const newId = (): string => randomBytes(12).toString("hex");
