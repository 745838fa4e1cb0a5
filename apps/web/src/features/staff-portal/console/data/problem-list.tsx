import { FormAlert } from '../../../../components/form-field.tsx';
import type { Problem } from './console-data-api.ts';

/** A refused file: the server's summary, then each problem with its line, as the file has them. */
export function ProblemList({ summary, problems }: { summary: string; problems: Problem[] }) {
  return (
    <FormAlert>
      <p>{summary}</p>
      {problems.length > 0 && (
        <ul className="console-problems">
          {problems.map((problem) => (
            <li key={`${problem.field} ${problem.message}`}>
              <strong>{problem.field}</strong>: {problem.message}
            </li>
          ))}
        </ul>
      )}
    </FormAlert>
  );
}
