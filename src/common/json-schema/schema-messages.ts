/** What the event loop asks the schema worker, and what it answers. */
export type SchemaRequest = { id: number; op: 'schema'; schema: unknown } | { id: number; op: 'value'; schema: unknown; value: unknown; root: string };

export interface SchemaResponse {
  id: number;
  problem: string | null;
}
