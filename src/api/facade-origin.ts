// The façade's own origin as the caller reached it, for the absolute URLs routes return (recording
// downloads, live view). Not Koa's ctx.origin: in Koa 3 that is the request's Origin header.
import type { RouteContext } from './route.js';

export const facadeOrigin = (ctx: RouteContext): string => `${ctx.protocol}://${ctx.host}`;
