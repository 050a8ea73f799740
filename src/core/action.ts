import { z } from "zod";

/** Contract version of actions, observations, steps and trajectories. */
export const SCHEMA_VERSION = 1;

const Coord = z.number().finite();

/** A point (x, y in CSS pixels of the viewport) or an element id from the accessibility text. */
export const TargetSchema = z
  .object({ x: Coord.optional(), y: Coord.optional(), elementId: z.string().min(1).optional() })
  .strict()
  .refine((t) => (t.elementId !== undefined) !== (t.x !== undefined && t.y !== undefined), {
    message: "a target needs either both x and y, or an elementId (not both)",
  })
  .refine((t) => (t.x === undefined) === (t.y === undefined), { message: "x and y go together" });
export type Target = z.infer<typeof TargetSchema>;

function pointerAction<T extends string>(type: T) {
  return z
    .object({
      type: z.literal(type),
      x: Coord.optional(),
      y: Coord.optional(),
      elementId: z.string().min(1).optional(),
    })
    .strict()
    .refine((a) => (a.elementId !== undefined) !== (a.x !== undefined && a.y !== undefined), {
      message: `${type} needs either both x and y, or an elementId (not both)`,
    })
    .refine((a) => (a.x === undefined) === (a.y === undefined), { message: "x and y go together" });
}

export const ClickActionSchema = pointerAction("click");
export const DoubleClickActionSchema = pointerAction("double_click");
export const RightClickActionSchema = pointerAction("right_click");
export const HoverActionSchema = pointerAction("hover");

export const DragActionSchema = z
  .object({ type: z.literal("drag"), from: TargetSchema, to: TargetSchema })
  .strict();

/** Types `text` into the focused element, or into `elementId` after focusing it. */
export const TypeActionSchema = z
  .object({ type: z.literal("type"), text: z.string(), elementId: z.string().min(1).optional() })
  .strict();

/** A key or combo in Playwright notation: `Enter`, `Escape`, `ctrl+a`, `Shift+Tab`. */
export const KeyActionSchema = z
  .object({
    type: z.literal("key"),
    keys: z
      .string()
      .min(1)
      .regex(/^[^+\s]+(\+[^+\s]+)*$|^\+$/, "keys are names joined with '+', e.g. ctrl+a"),
  })
  .strict();

export const ScrollDirectionSchema = z.enum(["up", "down", "left", "right"]);
export const ScrollActionSchema = z
  .object({
    type: z.literal("scroll"),
    direction: ScrollDirectionSchema,
    amount: z.number().positive().max(100_000).optional(),
    x: Coord.optional(),
    y: Coord.optional(),
  })
  .strict()
  .refine((a) => (a.x === undefined) === (a.y === undefined), { message: "x and y go together" });

export const SelectActionSchema = z
  .object({ type: z.literal("select"), elementId: z.string().min(1), value: z.string() })
  .strict();

export const WaitActionSchema = z
  .object({ type: z.literal("wait"), ms: z.number().int().min(0).max(60_000).default(500) })
  .strict();

export const DoneActionSchema = z.object({ type: z.literal("done"), answer: z.string().optional() }).strict();
export const FailActionSchema = z.object({ type: z.literal("fail"), reason: z.string().optional() }).strict();

/** Grid worlds (FrozenLake): one of four directions. */
export const GridDirectionSchema = z.enum(["left", "down", "right", "up"]);
export const MoveActionSchema = z
  .object({ type: z.literal("move"), direction: GridDirectionSchema })
  .strict();

/** Board games (chess): a move in UCI notation, e.g. e2e4, e7e8q. */
export const UciMoveActionSchema = z
  .object({
    type: z.literal("uci"),
    move: z.string().regex(/^[a-h][1-8][a-h][1-8][qrbn]?$/, "a UCI move such as e2e4 or e7e8q"),
  })
  .strict();

/** The longest shell command line accepted (environments may cap lower). */
export const MAX_SHELL_COMMAND_CHARS = 4096;

/** Terminals: one bash command line, run in the environment's sandboxed shell. */
export const ShellActionSchema = z
  .object({
    type: z.literal("shell"),
    command: z
      .string()
      .min(1)
      .max(MAX_SHELL_COMMAND_CHARS)
      .refine((c) => c.trim().length > 0, { message: "a shell command must not be blank" }),
  })
  .strict();

export const ActionSchema = z.discriminatedUnion("type", [
  ClickActionSchema,
  DoubleClickActionSchema,
  RightClickActionSchema,
  HoverActionSchema,
  DragActionSchema,
  TypeActionSchema,
  KeyActionSchema,
  ScrollActionSchema,
  SelectActionSchema,
  WaitActionSchema,
  DoneActionSchema,
  FailActionSchema,
  MoveActionSchema,
  UciMoveActionSchema,
  ShellActionSchema,
]);

export type Action = z.infer<typeof ActionSchema>;
export type ActionType = Action["type"];
export type ActionOf<T extends ActionType> = Extract<Action, { type: T }>;
export type GridDirection = z.infer<typeof GridDirectionSchema>;
export type ScrollDirection = z.infer<typeof ScrollDirectionSchema>;

export const ACTION_TYPES: ReadonlyArray<ActionType> = ActionSchema.options.map(
  (o) => o.shape.type.value,
) as ActionType[];
