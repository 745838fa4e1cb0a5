import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { FormField } from './form-field.tsx';

describe('FormField', () => {
  it('lets a person show the password they typed, and hide it again, with a real button', async () => {
    const user = userEvent.setup();
    render(<FormField label="Password" type="password" autoComplete="current-password" name="password" />);
    const input = screen.getByLabelText('Password') as HTMLInputElement;
    expect(input.type).toBe('password');

    await user.click(screen.getByRole('button', { name: 'Show password' }));
    expect(input.type).toBe('text');
    const hide = screen.getByRole('button', { name: 'Hide password' });
    expect(hide.textContent).toBe('Hide');
    expect(hide.getAttribute('aria-controls')).toBe(input.id);

    await user.click(hide);
    expect(input.type).toBe('password');
  });

  it('offers no Show button on a masked field that is not a password', () => {
    render(<FormField label="Last 4 digits" type="password" autoComplete="off" name="last4Ssn" />);
    expect(screen.queryByRole('button')).toBeNull();
  });
});
