import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { HelpContent, type HelpTopic, helpTopicOf } from './help-content.tsx';

describe('helpTopicOf', () => {
  it.each<[string, HelpTopic]>([
    ['/', 'domain'],
    ['/unsubscribe', 'preferences'],
    ['/a/sign-in', 'staff'],
    ['/d/reset-password', 'staff'],
    ['/d', 'staff'],
    ['/c/verify-token', 'consumer'],
    ['/c/account-summary', 'consumer'],
    ['/c/expired-link', 'consumer'],
    ['/c/mfa', 'code'],
    ['/3f0c7a52-5a5e-4a8e-9d38-6f0e4c1a2b3c/2', 'consumer'],
    ['/apples', 'consumer'],
  ])('%s has the %s help', (pathname, topic) => {
    expect(helpTopicOf(pathname)).toBe(topic);
  });
});

describe('HelpContent', () => {
  it.each<[HelpTopic, string]>([
    ['domain', 'Finding your domain'],
    ['consumer', 'Why we ask who you are'],
    ['code', 'Your code'],
    ['staff', 'Signing in'],
    ['preferences', 'Your email preferences'],
  ])('explains the %s page with its own help', async (topic, heading) => {
    render(<HelpContent topic={topic} />);
    expect((await screen.findAllByRole('heading', { level: 3 }))[0]?.textContent).toBe(heading);
  });
});
