import { useParams } from 'react-router';
import { ProtectedConsumerPage } from './consumer-page.tsx';

export interface TargetPageProps {
  /** What the page is, as a heading: "Account summary", "Documents", ... */
  title: string;
  /** One sentence on what the page is for. */
  description: string;
}

/** A page a link can lead to (spec section 2, target codes), optionally for one item (`/:id`). */
export function TargetPage({ title, description }: TargetPageProps) {
  const { id } = useParams();
  return (
    <ProtectedConsumerPage title={title}>
      <p>{description}</p>
      {id !== undefined && (
        <p>
          Reference: <strong>{id}</strong>
        </p>
      )}
    </ProtectedConsumerPage>
  );
}
