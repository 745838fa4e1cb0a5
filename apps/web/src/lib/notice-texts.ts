import { errorMessages } from '@entry/domain';

/** The spec's messages that the snack-bar shows. */
export const noticeTexts = {
  connectionLost: errorMessages.connectionLost,
  serverError: errorMessages.serverError,
  unknownError: errorMessages.unknownError,
};
