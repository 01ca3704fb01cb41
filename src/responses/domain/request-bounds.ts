/** docs/responses-api.md#limits: every size a client controls on POST /v1/responses. */
export const RESPONSE_BOUNDS = {
  /** Items in `input`. */
  maxInputItems: 100,
  /** Content parts in one message. */
  maxContentParts: 100,
  /** Function tools in `tools`. */
  maxTools: 64,
  /** Keys of `metadata`, their length and their values' length (OpenAI's own bounds). */
  maxMetadataKeys: 16,
  maxMetadataKeyLength: 64,
  maxMetadataValueLength: 512,
  /** Code points of `model`, `instructions` and a tool's `description`. */
  maxModelLength: 256,
  maxInstructionsLength: 256 * 1024,
  maxDescriptionLength: 4096,
  /** Code points of one `function_call_output`'s `output`. */
  maxOutputLength: 256 * 1024,
} as const;
