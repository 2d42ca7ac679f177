// Lambda on its REST/JSON protocol: ListFunctions, `GET /2015-03-31/functions/?Marker=&MaxItems=`, answering
// `{Functions, NextMarker}`. Modelled on https://docs.aws.amazon.com/lambda/latest/api/API_ListFunctions.html;
// throttling is `TooManyRequestsException`, HTTP 429, with `x-amzn-ErrorType` (API_ListFunctions.html
// "Errors").
import { page } from './estate.js';
import type { StandInReply, StandInService } from './server.js';

const json = (status: number, body: unknown, headers?: Record<string, string>): StandInReply => ({
  status,
  type: 'application/json',
  body: JSON.stringify(body),
  headers,
});

export const lambda: StandInService = {
  signingName: 'lambda',
  action: (request) =>
    request.method === 'GET' && /^\/2015-03-31\/functions\/?$/.test(request.url.pathname)
      ? 'ListFunctions'
      : `${request.method}:${request.url.pathname}`,
  handle(action, request) {
    if (action !== 'ListFunctions') return this.error(404, 'ResourceNotFoundException', `no route ${action}`);
    const { items, next } = page(
      request.estate.functions ?? [],
      request.url.searchParams.get('Marker'),
      request.url.searchParams.get('MaxItems'),
      request.pageSize,
    );
    return json(200, { Functions: items, NextMarker: next });
  },
  throttled: () =>
    json(
      429,
      { Type: 'User', message: 'Rate exceeded', Reason: 'CallerRateLimitExceeded' },
      { 'x-amzn-errortype': 'TooManyRequestsException', 'retry-after': '0' },
    ),
  error: (status, code, message) => json(status, { Type: 'User', message }, { 'x-amzn-errortype': code }),
};
