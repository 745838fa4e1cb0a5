import { verificationFieldsFor } from '@entry/domain';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { type VerificationAnswers, VerificationForm } from './verification-form.tsx';

function renderForm(signInType: Parameters<typeof verificationFieldsFor>[0]) {
  const submitted: VerificationAnswers[] = [];
  const onSubmit = vi.fn(async (answers: VerificationAnswers) => {
    submitted.push(answers);
  });
  render(
    <VerificationForm
      fields={verificationFieldsFor(signInType)}
      submitLabel="Continue"
      refusal={null}
      onSubmit={onSubmit}
      today={new Date(2026, 5, 1)}
    />,
  );
  return { submitted };
}

const alerts = () => screen.queryAllByRole('alert').map((alert) => alert.textContent);

describe('VerificationForm', () => {
  it.each([
    ['Last4Ssn', ['Last 4 digits of your Social Security number']],
    ['PostalCode', ['ZIP code']],
    ['DateOfBirth', ['Month', 'Day', 'Year']],
    ['None', ['Last 4 digits of your Social Security number', 'ZIP code', 'Month', 'Day', 'Year']],
  ] as const)('asks a %s link only for its answers', (signInType, labels) => {
    renderForm(signInType);
    expect(document.querySelectorAll('input, select')).toHaveLength(labels.length);
    for (const label of labels) expect(screen.getByLabelText(label)).toBeTruthy();
  });

  it('offers four-digit birth years from this year back to 1900, and the spec months and days', () => {
    renderForm('DateOfBirth');
    const years = [...(screen.getByLabelText('Year') as HTMLSelectElement).options].map(
      (option) => option.value,
    );
    expect(years.slice(0, 3)).toEqual(['', '2026', '2025']);
    expect(years.at(-1)).toBe('1900');
    expect([...(screen.getByLabelText('Month') as HTMLSelectElement).options]).toHaveLength(13);
    expect([...(screen.getByLabelText('Day') as HTMLSelectElement).options]).toHaveLength(32);
  });

  it('shows errors only after submission and sends nothing while they stand', async () => {
    const { submitted } = renderForm('None');
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('ZIP code'), '123');
    await user.tab();
    expect(alerts()).toEqual([]);
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(alerts()).toEqual([
      'Enter the last 4 digits of your Social Security number.',
      'Enter the 5 digits of your ZIP code.',
      'Choose the month, day and year of your birth.',
    ]);
    expect(submitted).toEqual([]);
  });

  it('moves the focus to the first answer to fix, and drops its error once it is fixed', async () => {
    renderForm('None');
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Last 4 digits of your Social Security number'), '1234');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(document.activeElement).toBe(screen.getByLabelText('ZIP code'));
    await user.type(screen.getByLabelText('ZIP code'), '90210');
    expect(alerts()).toEqual(['Choose the month, day and year of your birth.']);
    expect(screen.getByLabelText('ZIP code').getAttribute('aria-invalid')).toBe('false');
  });

  it('is busy, and sends once, while the answers are on their way', async () => {
    let answer: () => void = () => undefined;
    const onSubmit = vi.fn(() => new Promise<void>((resolve) => (answer = resolve)));
    render(
      <VerificationForm
        fields={verificationFieldsFor('PostalCode')}
        submitLabel="Continue"
        refusal={null}
        onSubmit={onSubmit}
      />,
    );
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('ZIP code'), '90210');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    const button = screen.getByRole('button', { name: 'Continue' });
    expect(button.getAttribute('aria-busy')).toBe('true');
    await user.type(screen.getByLabelText('ZIP code'), '{Enter}');
    expect(onSubmit).toHaveBeenCalledTimes(1);
    answer();
    await waitFor(() => expect(button.getAttribute('aria-busy')).toBe('false'));
  });

  it('refuses a date that does not exist', async () => {
    const { submitted } = renderForm('DateOfBirth');
    const user = userEvent.setup();
    await user.selectOptions(screen.getByLabelText('Month'), '02');
    await user.selectOptions(screen.getByLabelText('Day'), '30');
    await user.selectOptions(screen.getByLabelText('Year'), '1980');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(alerts()).toEqual(['This date does not exist. Check the day and the month.']);
    expect(submitted).toEqual([]);
  });

  it('sends the answers asked for, the date as YYYY-MM-DD', async () => {
    const { submitted } = renderForm('None');
    const user = userEvent.setup();
    await user.type(screen.getByLabelText('Last 4 digits of your Social Security number'), '1234');
    await user.type(screen.getByLabelText('ZIP code'), '90210');
    await user.selectOptions(screen.getByLabelText('Month'), '04');
    await user.selectOptions(screen.getByLabelText('Day'), '15');
    await user.selectOptions(screen.getByLabelText('Year'), '1980');
    await user.click(screen.getByRole('button', { name: 'Continue' }));
    expect(submitted).toEqual([{ last4Ssn: '1234', postalCode: '90210', dateOfBirth: '1980-04-15' }]);
  });
});
