/** Our own help text: where the domain comes from and what the link in a letter does. */
export function HelpContent() {
  return (
    <>
      <h3>Finding your domain</h3>
      <p>
        Your domain is the short name of the organization that wrote to you. It is printed on the letter or
        e-mail you received, usually in the web address, for example the <em>sender</em> in
        <span className="nowrap"> sender.example.com</span>.
      </p>
      <p>Type only that name, in lower case, then choose Next.</p>
      <h3>The link in your letter</h3>
      <p>
        The web address in your letter or e-mail contains a personal code. Opening it takes you to your
        account. Depending on the organization, you may be asked to confirm who you are, for example with the
        last four digits of your Social Security number, your ZIP code or your date of birth.
      </p>
      <p>
        If the link has expired, contact the organization that sent the letter and ask for a new one. Never
        share your link with anyone else.
      </p>
    </>
  );
}
