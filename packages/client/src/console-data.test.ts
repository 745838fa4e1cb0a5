import { describe, expect, it } from 'vitest';
import { createConsoleDataApi, createConsoleHttpClient } from './console-data.ts';
import {
  json,
  manualClock,
  memoryStorage,
  type Responder,
  recordingHooks,
  scriptedFetch,
} from './test-support.ts';
import { createTokenStore } from './token-store.ts';

function setup(respond: Responder) {
  const fetch = scriptedFetch(respond);
  const clock = manualClock();
  const http = createConsoleHttpClient({
    scope: 'admin',
    tokens: createTokenStore(memoryStorage(), 'admin', clock.now),
    hooks: recordingHooks(),
    fetch,
    now: clock.now,
  });
  return { consoleData: createConsoleDataApi(http), fetch };
}

describe("the console's data calls", () => {
  it('sends a CSV as it is and answers the letter-links CSV as text', async () => {
    const links = 'consumerId,signInType,token\nC-1,Direct,abc\n';
    const { consoleData, fetch } = setup(
      () => new Response(links, { status: 200, headers: { 'Content-Type': 'text/csv' } }),
    );
    const answer = await consoleData.issueMailing(1001, 'consumerId,signInType\nC-1,Direct\n', 'spring');
    expect(answer).toBe(links);
    const sent = fetch.sent.at(-1);
    expect(`${sent?.method} ${sent?.url.pathname}${sent?.url.search}`).toBe(
      'POST /api/console/v1/organizations/1001/mailings?mailing=spring',
    );
    expect(sent?.headers.get('content-type')).toBe('text/csv');
    expect(sent?.body).toBe('consumerId,signInType\nC-1,Direct\n');
  });

  it("reads an audit page with its rows' instants as dates, and sends the filters and cursor", async () => {
    const { consoleData, fetch } = setup(() =>
      json({
        rows: [
          {
            id: 7,
            at: '2030-01-02T03:04:05.678Z',
            event: 'consumer.sign-in',
            outcome: 'success',
            actor: 'consumer:1',
            customerId: 1001,
            ip: null,
            detail: {},
          },
        ],
        nextCursor: 'next',
      }),
    );
    const page = await consoleData.searchAudit({ customerId: 1001, outcome: 'success', cursor: 'c1' });
    expect(page.rows[0]?.at).toEqual(new Date('2030-01-02T03:04:05.678Z'));
    expect(page.nextCursor).toBe('next');
    expect(fetch.sent.at(-1)?.url.search).toBe('?customerId=1001&outcome=success&cursor=c1');
  });
});
