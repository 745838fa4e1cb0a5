import { debtCollectorDisclosure } from '@entry/domain';
import type { Catalogue } from './catalogue.ts';
import { plural } from './plural.ts';

const locale = 'es-US';

/** "Le queda 1 intento", "Le quedan 3 intentos". */
const triesLeftCount = (count: number) =>
  plural(locale, count, 'Le queda 1 intento', `Le quedan ${count} intentos`);

/** A clock time after "a partir de": "la 1:15 p. m.", "las 3:45 p. m.". */
const atTime = (time: string) => `${/^1\D/.test(time) ? 'la' : 'las'} ${time}`;

const theOrganization = 'la organización que le escribió';

/**
 * The Spanish catalogue: formal (usted) US Spanish. Loaded only when a page shows Spanish
 * (docs/decisions/038-consumer-languages.md).
 */
export const es: Catalogue = {
  layout: {
    locale,
    skipToContent: 'Ir al contenido',
    help: '¿Necesita ayuda?',
    closeHelp: 'Cerrar la ayuda',
    privacy: 'Privacidad',
    languages: 'Idioma',
    loading: 'Cargando…',
    pageNotLoaded: 'No se pudo cargar esta página',
    unreachable:
      'En este momento no podemos comunicarnos con el servidor. Revise su conexión a internet e inténtelo de nuevo. También lo volveremos a intentar en cuanto su dispositivo se vuelva a conectar.',
    tryAgain: 'Intentar de nuevo',
    updateAvailable: 'Hay una actualización disponible',
    refresh: 'Actualizar',
  },
  organization: {
    contactOf: (name) => `Comuníquese con ${name}`,
    contact: { phone: 'Teléfono', email: 'Correo electrónico', hours: 'Horario', website: 'Sitio web' },
    debtCollector: debtCollectorDisclosure.es,
  },
  help: {
    consumer: [
      {
        heading: 'Por qué le preguntamos quién es',
        paragraphs: [
          'El enlace de su carta es personal. Antes de abrir su cuenta, es posible que le pidamos los últimos cuatro dígitos de su número de Seguro Social, su código postal o su fecha de nacimiento, y que luego le enviemos un código a su correo electrónico. Usamos sus respuestas únicamente para confirmar que el enlace es suyo.',
          'Después de varias respuestas incorrectas, la verificación se bloquea por un tiempo para proteger su cuenta.',
        ],
      },
      {
        heading: 'Cómo proteger su cuenta',
        paragraphs: [
          'Si usa un teléfono o una computadora compartidos, elija Cerrar sesión cuando termine. Su sesión también se cierra después de 15 minutos sin actividad. Nunca comparta su enlace con otra persona.',
          'Si su enlace venció, comuníquese con la organización que le escribió y pida uno nuevo.',
        ],
      },
    ],
    code: [
      {
        heading: 'Su código',
        paragraphs: [
          'Le enviamos un código de 6 dígitos al correo electrónico que la organización tiene registrado. Es válido por 10 minutos y solo funciona el código más reciente.',
          '¿No le ha llegado el correo después de unos minutos? Revise su carpeta de correo no deseado y luego pida un código nuevo. Puede pedirlo una vez por minuto.',
          'Si ya no usa ese correo electrónico, comuníquese con la organización que le escribió.',
        ],
      },
    ],
    preferences: [
      {
        heading: 'Sus preferencias de correo electrónico',
        paragraphs: [
          'Al abrir el enlace de un correo electrónico, su dirección deja de recibir los correos de la organización sobre su cuenta. Puede volver a suscribirse aquí en cualquier momento; el enlace de cada correo sigue funcionando.',
          'Los correos que usted mismo solicita, como un código para iniciar sesión o un enlace para restablecer la contraseña, se envían siempre, aunque haya cancelado la suscripción.',
        ],
      },
    ],
  },
  notices: {
    connectionLost: 'Se perdió la conexión con el servidor. Vuelva a iniciar sesión.',
    serverError: 'El servidor respondió con un error. Inténtelo de nuevo más tarde.',
    unknownError: 'Ocurrió un error desconocido. Inténtelo de nuevo más tarde.',
  },
  refusals: {
    network: 'No se pudo conectar con el servidor. Revise su conexión e inténtelo de nuevo.',
    tooManyRequests: 'Hubo demasiados intentos desde su red. Espere unos minutos e inténtelo de nuevo.',
    tooManyRequestsFor: (wait) => `Hubo demasiados intentos. Inténtelo de nuevo ${wait}.`,
    notAvailable: 'No pudimos completar esta acción en este momento. Inténtelo de nuevo en un momento.',
    inAMinute: 'en un minuto',
    inMinutes: (minutes) => `en ${minutes} minutos`,
    inAboutHours: (hours) =>
      plural(locale, hours, 'en aproximadamente 1 hora', `en aproximadamente ${hours} horas`),
  },
  session: {
    signedOut: 'Cerró su sesión.',
    notSignedIn: 'No ha iniciado sesión.',
    idleSignedOut: 'Cerramos su sesión porque no hubo actividad durante un tiempo.',
    idleWarningTitle: '¿Sigue ahí?',
    idleWarning: (seconds) =>
      `Su sesión se cerrará en ${plural(locale, seconds, '1 segundo', `${seconds} segundos`)}.`,
    stay: 'Mantener la sesión abierta',
    signOut: 'Cerrar sesión',
  },
  consumer: {
    noMatch: 'Estos datos no coinciden con nuestros registros. Revíselos e inténtelo de nuevo.',
    triesLeft: (count) => `${triesLeftCount(count)} antes de que la verificación se bloquee por un tiempo.`,
    codeTriesLeft: (count) => `${triesLeftCount(count)}.`,
    locked: (who) =>
      `Por su seguridad, la verificación se bloquea por un tiempo después de demasiados intentos. Inténtelo de nuevo más tarde o comuníquese con ${who}.`,
    lockedUntil: (time, who) =>
      `Por su seguridad, la verificación se bloqueó después de demasiados intentos. Inténtelo de nuevo a partir de ${atTime(time)} o comuníquese con ${who}.`,
    lockEndTomorrow: (time) => `${time} de mañana`,
    lockEndOn: (time, day) => `${time} del ${day}`,
    theOrganization,
    ambiguous:
      'Hay más de una cuenta que coincide con estos datos. Abra el enlace de su carta o de su correo electrónico.',
    notFound: 'No encontramos ninguna cuenta con estos datos. Revíselos e inténtelo de nuevo.',
    serviceUnavailable:
      'En este momento no podemos verificar sus datos. Inténtelo de nuevo dentro de unos minutos.',
    wrongCode:
      'Ese código no es correcto o ya venció. Revise el correo más reciente que le enviamos o pida un código nuevo.',
    codeUsedUp: 'Este código ya no se puede usar. Pida un código nuevo a continuación.',
    codesLocked:
      'Por su seguridad, los códigos se bloquean por un tiempo después de demasiados códigos incorrectos. Inténtelo de nuevo más tarde.',
    codesLockedFor: (wait) =>
      `Por su seguridad, los códigos se bloquearon después de demasiados códigos incorrectos. Inténtelo de nuevo ${wait}.`,
    codeStepExpired: 'Su verificación venció. Vuelva a confirmar su identidad.',
    codeSent: 'Le enviamos un código nuevo. Reemplaza al anterior.',
    noCodeNowFor: (wait) =>
      `No podemos enviarle otro código en este momento. Puede pedir un código nuevo ${wait}.`,
    noPortal:
      'Esta dirección no pertenece a ninguna organización. Abra el enlace de su carta o de su correo electrónico.',
    fields: {
      last4Ssn: {
        label: 'Últimos 4 dígitos de su número de Seguro Social',
        required: 'Escriba los últimos 4 dígitos de su número de Seguro Social.',
        invalid: 'Escriba exactamente 4 dígitos.',
      },
      postalCode: {
        label: 'Código postal (ZIP)',
        required: 'Escriba su código postal.',
        invalid: 'Escriba los 5 dígitos de su código postal.',
      },
      dateOfBirth: {
        legend: 'Fecha de nacimiento',
        required: 'Elija el mes, el día y el año de su nacimiento.',
        invalid: 'Esta fecha no existe. Revise el día y el mes.',
        month: 'Mes',
        day: 'Día',
        year: 'Año',
      },
      mfaCode: {
        label: 'Código de 6 dígitos',
        required: 'Escriba el código de 6 dígitos que le enviamos por correo.',
        invalid: 'El código tiene 6 dígitos.',
      },
    },
    verify: {
      title: 'Confirme su identidad',
      intro: (asked) =>
        `Para proteger su cuenta, escriba ${asked}. Lo usamos únicamente para confirmar que este enlace es suyo.`,
      askedFor: {
        Last4Ssn: 'los últimos 4 dígitos de su número de Seguro Social',
        PostalCode: 'su código postal',
        DateOfBirth: 'su fecha de nacimiento',
      },
      identityTitle: 'Verifique su identidad',
      identityIntro:
        'Para proteger su cuenta, escriba los últimos 4 dígitos de su número de Seguro Social, su código postal y su fecha de nacimiento.',
      submit: 'Continuar',
    },
    code: {
      title: 'Escriba su código',
      intro:
        'Le enviamos un código de 6 dígitos al correo electrónico que tenemos registrado. Es válido por 10 minutos.',
      submit: 'Continuar',
      sendNew: 'Enviar un código nuevo',
      askAgain: (wait) => `Podrá pedir un código nuevo ${wait}.`,
      askAgainInSeconds: (seconds) =>
        `Podrá pedir un código nuevo en ${plural(locale, seconds, '1 segundo', `${seconds} segundos`)}.`,
      askNow: '¿No le llegó el correo? Ya puede pedir un código nuevo.',
      startAgain: 'Volver a empezar',
    },
    signedOut: {
      title: 'Sesión cerrada',
      openAgainHint: (who) =>
        `Para volver a ver su cuenta con ${who}, abra su enlace de nuevo. Si no, puede cerrar esta página.`,
      openAgain: 'Abrir su enlace de nuevo',
    },
    expired: {
      title: 'Este enlace venció',
      text: 'El enlace que abrió ya no es válido. Por la seguridad de su cuenta, los enlaces de las cartas y los correos electrónicos funcionan solo por un tiempo limitado.',
      hint: (who) =>
        `Aún puede entrar a su cuenta si confirma su identidad, o puede pedirle un enlace nuevo a ${who}.`,
    },
    failed: {
      title: 'No pudimos iniciar su sesión',
      text: 'Falló la conexión con nuestro servicio al abrir su enlace. No se hizo ningún cambio en su cuenta.',
      hint: 'Inténtelo de nuevo: abra otra vez el enlace de su carta o correo electrónico dentro de unos minutos, o confirme su identidad para entrar a su cuenta ahora.',
      backToStart: 'Volver al inicio',
    },
    confirmIdentity: 'Confirmar su identidad',
    portal: {
      welcomeTitle: 'Le damos la bienvenida',
      welcome: 'Esta es su cuenta.',
      targets: {
        'account-summary': {
          title: 'Resumen de la cuenta',
          description: 'Un resumen de su cuenta con la organización que le escribió.',
        },
        documents: {
          title: 'Documentos',
          description: 'Las cartas y los estados de cuenta que le enviamos.',
        },
        'payment-options': {
          title: 'Opciones de pago',
          description: 'Las formas en que puede pagar o establecer un plan de pagos.',
        },
        'document-view': {
          title: 'Documento',
          description: 'Una de las cartas o estados de cuenta que le enviamos.',
        },
        'payment-method': { title: 'Forma de pago', description: 'Cómo desea hacer su pago.' },
      },
      reference: 'Referencia:',
      loadingAccount: 'Cargando los datos de su cuenta…',
      accountUnreachable: 'No se pudieron cargar los datos de su cuenta.',
      accountFailed:
        'Los datos de su cuenta no están disponibles en este momento. Inténtelo de nuevo más tarde.',
      yourAccount: 'Su cuenta',
      amountDue: 'Saldo a pagar',
      scheduledPayment: 'Pago programado',
      downPayment: 'Pago inicial',
      schedule: 'Frecuencia',
      signedInAs: 'Sesión iniciada como',
      you: 'Usted',
      sessionEnds: 'La sesión termina',
      soonerAfter: (minutes) => `(antes, si pasan ${minutes} minutos sin actividad)`,
    },
  },
  linkLanding: {
    opening: 'Abriendo su enlace',
    checking: 'Estamos revisando su enlace, un momento…',
    notOpenedYet: 'Todavía no se pudo abrir su enlace',
    stillWorks: 'Su enlace aún no se ha revisado y sigue siendo válido.',
  },
  preferences: {
    title: 'Preferencias de correo electrónico',
    subscribedStatus: { beforeEmail: 'Su correo electrónico ', afterEmail: ' está recibiendo correos.' },
    subscribedHint: 'Para dejar de recibir correos, haga clic en Cancelar suscripción.',
    unsubscribedStatus: { beforeEmail: 'Su correo electrónico ', afterEmail: ' canceló su suscripción.' },
    unsubscribedHint: 'Para volver a recibir correos, haga clic en Suscribirse.',
    coverage:
      'Esta opción se aplica a los correos que la organización le envía sobre su cuenta. Los correos que usted mismo solicita, como un código para iniciar sesión o un enlace para restablecer la contraseña, se envían siempre.',
    problems: {
      missingToken:
        'Esta página necesita el enlace de uno de nuestros correos. Abra el enlace para cancelar la suscripción que viene en el correo que recibió.',
      unknownToken:
        'No encontramos las preferencias de correo de este enlace. Asegúrese de haber abierto el enlace completo del correo o vuelva a abrirlo.',
      loadFailed:
        'En este momento no se pudieron cargar sus preferencias de correo. Inténtelo de nuevo dentro de unos minutos.',
    },
    updating: 'Actualizando sus preferencias de correo…',
    tryAgain: 'Intentar de nuevo',
    subscribe: 'Suscribirse',
    unsubscribe: 'Cancelar suscripción',
    notSaved: 'No se pudo guardar su cambio. Inténtelo de nuevo.',
  },
  privacy: {
    title: 'Privacidad',
    theOrganization,
    intro: (who) =>
      `Este servicio le permite entrar a su cuenta con ${who}. Guarda la menor cantidad posible de información sobre usted, y solo para iniciar su sesión de forma segura.`,
    typedTitle: 'Lo que usted escribe',
    typed: (who) =>
      `Las respuestas que da para confirmar su identidad (los últimos 4 dígitos de su número de Seguro Social, su código postal o su fecha de nacimiento) se comparan con los registros de ${who} y no se guardan. Las contraseñas de las cuentas del personal se guardan solo de una forma que no permite recuperar la contraseña.`,
    browserTitle: 'Lo que guarda su navegador',
    browser:
      'Mientras tiene la sesión iniciada, esta pestaña del navegador guarda su sesión, y una cookie permite que el servicio la renueve. Ambas terminan cuando usted cierra la sesión, después de un tiempo sin actividad o cuando cierra la pestaña. No hay cookies de publicidad ni de seguimiento, ni herramientas de análisis.',
    recordsTitle: 'Lo que registra el servicio',
    records:
      'Para proteger su cuenta, el servicio registra los inicios de sesión, los intentos fallidos y las aperturas de enlaces, con la hora y la dirección de red de donde provienen. Solo envía correos electrónicos para ayudarle a iniciar sesión, como los códigos de un solo uso.',
    questionsTitle: 'Preguntas sobre su cuenta',
    questions: (who) =>
      `Su cuenta y la información sobre ella pertenecen a ${who}; consúltele a esa organización.`,
  },
};
