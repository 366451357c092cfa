// The façade's own origin as the caller reached it, for the absolute URLs recording routes return.
import type { RouteContext } from '../../route.js';

export const facadeOrigin = (ctx: RouteContext): string => `${ctx.protocol}://${ctx.host}`;
