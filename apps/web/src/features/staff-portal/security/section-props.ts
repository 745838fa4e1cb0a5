import type { SecondFactorsApi, SecondFactorsResult } from '@entry/client';
import type { EnrolmentResult } from '@entry/domain';
import type { StepUpOutcome } from '../common/step-up.tsx';

/** What every section of the security page is given. */
export interface SectionProps {
  factors: SecondFactorsResult;
  secondFactors: SecondFactorsApi;
  /** The policy lets this user add factors. */
  canAdd: boolean;
  withStepUp<T>(action: () => Promise<T>): Promise<StepUpOutcome<T>>;
  /** A factor was added: the session was upgraded, and the first factor brings recovery codes. */
  onAdded(result: EnrolmentResult, message: string): void;
  /** Something else changed: announce it and read the factors again. */
  onChanged(message: string): void;
}
