/** The client's verbs, as counted by {@link RequestCounts} and reported to a {@link RestClientMetricsSink}. */
export type RequestVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'apply' | 'delete' | 'raw';

/** Requests sent per verb since the client was made; every HTTP request counts, retries and list pages included. */
export type RequestCounts = Record<RequestVerb, number>;

/**
 * Where the client reports each HTTP request, for client-go's `rest_client_*` metrics. `method` is the HTTP method
 * (client-go puts it in both the `method` label of `rest_client_requests_total` and the `verb` label of the duration
 * and retry metrics); `verb` is ours (get, list, apply, ...). `code` is the HTTP status, or `<error>` when no answer
 * came (client-go's value). A watch's duration is the time to its response headers.
 */
export interface RestClientMetricsSink {
  observeRequest(info: { verb: RequestVerb; method: string; host: string; code: string; durationSeconds: number }): void;
  observeRetry(info: { verb: RequestVerb; method: string; host: string; code: string }): void;
}
