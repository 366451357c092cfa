/** Functions run only in this region (the public API knows one region). */
export const REGION = 'us-west-2';
