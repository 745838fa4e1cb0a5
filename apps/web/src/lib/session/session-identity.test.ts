import { describe, expect, it } from 'vitest';
import { sessionIdentityOf } from './session-identity.ts';

describe('sessionIdentityOf', () => {
  it.each([
    [
      'a staff token',
      { sub: 'admin:7', tid: null, user: { name: 'Ada Admin', context: { roleId: 1 } } },
      {
        name: 'Ada Admin',
        launchedBy: null,
        identityToken: null,
        customerId: null,
        roleId: 1,
        subject: 'admin:7',
      },
    ],
    [
      'a launched customer token',
      {
        sub: 'customer:anonymous',
        tid: 1001,
        user: { context: { roleId: 2 } },
        launchedBy: { name: 'Ada Admin' },
      },
      {
        name: null,
        launchedBy: 'Ada Admin',
        identityToken: null,
        customerId: 1001,
        roleId: 2,
        subject: 'customer:anonymous',
      },
    ],
    [
      'a consumer token from a link',
      {
        sub: 'consumer:3',
        tid: 1001,
        user: { name: 'Morgan', context: { roleId: 3 } },
        identityToken: 'guid-1',
      },
      {
        name: 'Morgan',
        launchedBy: null,
        identityToken: 'guid-1',
        customerId: 1001,
        roleId: 3,
        subject: 'consumer:3',
      },
    ],
    [
      'claims of the wrong shape',
      { sub: 5, tid: '1001', user: { name: '' }, launchedBy: 'Ada', identityToken: 12 },
      { name: null, launchedBy: null, identityToken: null, customerId: null, roleId: null, subject: null },
    ],
    [
      'no payload',
      null,
      { name: null, launchedBy: null, identityToken: null, customerId: null, roleId: null, subject: null },
    ],
  ])('reads %s', (_, payload, expected) => {
    expect(sessionIdentityOf(payload)).toEqual(expected);
  });
});
