import { z } from "zod";

/** A provider-neutral chat message. Images carry raw bytes; the client turns them into data URLs. */
export type ContentPart =
  | { type: "text"; text: string }
  | { type: "image"; mime: "image/png" | "image/jpeg"; bytes: Uint8Array; detail?: "low" | "high" | "auto" };

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string | ReadonlyArray<ContentPart>;
}

/** What goes over the wire (the OpenAI chat format). */
export type WireContentPart =
  | { type: "text"; text: string }
  | { type: "image_url"; image_url: { url: string; detail?: "low" | "high" | "auto" } };

export interface WireMessage {
  role: "system" | "user" | "assistant";
  content: string | WireContentPart[];
}

/** The body of POST /chat/completions as this client sends it (fields that matter for replay). */
export const WireRequestSchema = z.object({
  model: z.string(),
  messages: z.array(z.unknown()),
  n: z.number().int().positive().optional(),
  temperature: z.number().optional(),
  seed: z.number().int().optional(),
  max_tokens: z.number().int().optional(),
  stop: z.union([z.string(), z.array(z.string())]).optional(),
});
export type WireRequest = z.infer<typeof WireRequestSchema>;

/** `data:<mime>;base64,...` for image bytes. */
export function imageDataUrl(bytes: Uint8Array, mime: "image/png" | "image/jpeg" = "image/png"): string {
  return `data:${mime};base64,${Buffer.from(bytes).toString("base64")}`;
}

export function toWireMessage(message: ChatMessage): WireMessage {
  if (typeof message.content === "string") return { role: message.role, content: message.content };
  const parts = message.content.map((part): WireContentPart => {
    if (part.type === "text") return { type: "text", text: part.text };
    const url = imageDataUrl(part.bytes, part.mime);
    return { type: "image_url", image_url: part.detail ? { url, detail: part.detail } : { url } };
  });
  return { role: message.role, content: parts };
}

export function toWireMessages(messages: ReadonlyArray<ChatMessage>): WireMessage[] {
  return messages.map(toWireMessage);
}
