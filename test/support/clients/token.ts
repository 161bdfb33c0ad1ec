/** Static bearer tokens the tests' gateways accept (no vitest imports: global set-ups use them). */
export const TOKEN = 'test-token-6a1f';
export const SECOND_TOKEN = 'second-token';
