// Path parameters of one recorded page of a session (and of one of its HLS segments).
export interface PageParams {
  id: string;
  pageId: string;
}

export const pageParams = (extra: Record<string, unknown> = {}) => ({
  type: 'object',
  required: ['id', 'pageId', ...Object.keys(extra)],
  properties: {
    id: { type: 'string', format: 'uuid', description: 'Session ID (UUID)' },
    pageId: { type: 'string', pattern: '^[0-9A-Fa-f]{1,64}$', description: 'Page ID (its CDP target ID)' },
    ...extra,
  },
});
