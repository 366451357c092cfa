/** Functions run only in this region (spec section 1). */
export const REGION = 'us-west-2';
