import { useParams } from 'react-router';
import { useTexts } from '../../i18n/language.ts';
import { consumerMessages, type TargetPath } from './consumer-messages.ts';
import { ProtectedConsumerPage } from './consumer-page.tsx';

/** A page a link's target code can lead to, optionally for one item (`/:id`). */
export function TargetPage({ page }: { page: TargetPath }) {
  const { id } = useParams();
  const texts = useTexts('consumer', consumerMessages).portal;
  const { title, description } = texts.targets[page];
  return (
    <ProtectedConsumerPage title={title}>
      <p>{description}</p>
      {id !== undefined && (
        <p>
          {texts.reference} <strong>{id}</strong>
        </p>
      )}
    </ProtectedConsumerPage>
  );
}
