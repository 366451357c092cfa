// A Function named on the command line by its ID or by its name (what `publish` prints and
// defineFn says), as users type it: a name is looked up in the project's Functions. A reference
// shaped as an ID is taken as one when a Function has that ID, else as a name.
import { ApiError, type ApiClient } from './api-client.js';
import { isUuid } from '../schemas/uuid.js';

const PAGE = 1000;

interface FunctionsPage {
  data: { id: string; name: string }[];
  total: number;
}

/** The Function's ID: `ref` itself when it is one, else the ID of the project's Function of that name. */
export async function functionIdOf(client: ApiClient, ref: string): Promise<string> {
  if (isUuid(ref) && (await functionExists(client, ref))) return ref;
  for (let offset = 0; ; offset += PAGE) {
    const page = await client.request<FunctionsPage>('GET', `/v1/functions?limit=${PAGE}&offset=${offset}`);
    const found = page.data.find((fn) => fn.name === ref);
    if (found) return found.id;
    if (offset + PAGE >= page.total) {
      const asId = isUuid(ref) ? 'with that ID or ' : '';
      throw new Error(`No Function ${asId}named "${ref}" in this project (${page.total} Functions; \`browserfn publish\` prints each with its ID)`);
    }
  }
}

async function functionExists(client: ApiClient, id: string): Promise<boolean> {
  try {
    await client.request('GET', `/v1/functions/${id}`);
    return true;
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return false;
    throw error;
  }
}
