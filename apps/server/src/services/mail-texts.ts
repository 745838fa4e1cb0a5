import type { Language } from '@entry/domain';

/**
 * The texts of the mail consumers get, in each language they may read: English word for word as
 * it always was, Spanish in the formal address (usted) of US collections letters. The product only
 * mails what a person asked for (codes, reset links), which unsubscribing does not stop; the
 * opt-out stops the organization's other mail.
 */
interface MailTexts {
  /** The line before the visible opt-out link in the text part. */
  optOutText: string;
  /** The opt-out link's text in the HTML part. */
  optOutHtml: string;
  codeSubject: string;
  codeText: (code: string, minutes: number) => string;
}

export const mailTexts: Readonly<Record<Language, MailTexts>> = {
  en: {
    optOutText:
      'This email was sent because you asked for it, and such emails still come after you unsubscribe. To stop the other emails we send to this address, open this link:',
    optOutHtml: 'Unsubscribe from our other emails',
    codeSubject: 'Your verification code',
    codeText: (code, minutes) =>
      `Your verification code is ${code}. It is valid for ${minutes} minutes. If you did not try to sign in, you can ignore this e-mail.`,
  },
  es: {
    optOutText:
      'Le enviamos este correo electrónico porque usted lo solicitó, y este tipo de correos le seguirá llegando aunque cancele su suscripción. Para dejar de recibir los demás correos que enviamos a esta dirección, abra este enlace:',
    optOutHtml: 'Cancelar la suscripción a nuestros demás correos',
    codeSubject: 'Su código de verificación',
    codeText: (code, minutes) =>
      `Su código de verificación es ${code}. Es válido por ${minutes} minutos. Si usted no intentó iniciar sesión, puede ignorar este correo electrónico.`,
  },
};
