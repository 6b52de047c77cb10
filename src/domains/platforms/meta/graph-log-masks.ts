/** Graph API tokens and the app secret travel in query strings: never let one reach a log line. */
export const GRAPH_LOG_MASKS = [
  { pattern: /access_token=[^&\s]+/g, replacement: 'access_token=<redacted>' },
  { pattern: /fb_exchange_token=[^&\s]+/g, replacement: 'fb_exchange_token=<redacted>' },
  { pattern: /client_secret=[^&\s]+/g, replacement: 'client_secret=<redacted>' },
];
