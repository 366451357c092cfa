// Path and query schemas shared by the Functions routes.
export const idParams = (name: string, what: string) => ({
  type: 'object',
  required: [name],
  properties: { [name]: { type: 'string', format: 'uuid', description: `${what} (UUID)` } },
});

export const pageQuery = {
  type: 'object',
  properties: {
    offset: { type: 'integer', minimum: 0, default: 0 },
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: 100 },
  },
};

export interface PageQuery {
  offset: number;
  limit: number;
}

export const page = <T>(items: T[], q: PageQuery): T[] => items.slice(q.offset, q.offset + q.limit);
