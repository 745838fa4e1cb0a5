/** The JSON of each answer kept for reuse, written once. */
const keptJson = new WeakMap<object, string>();

/**
 * Freezes an answer that is kept and sent again as it is (the read cache's access results and the
 * public form of its identity tokens), and writes its JSON once: every later request that answers
 * with it skips the serialization.
 */
function keptAnswer<T extends object>(answer: T): T {
  keptJson.set(Object.freeze(answer), JSON.stringify(answer));
  return answer;
}

/**
 * The answer `build` makes of a record the read cache holds, made and kept once for each record:
 * a record the cache lets go takes its answer with it.
 */
export function keptAnswerOf<Record extends object, Answer extends object>(
  build: (record: Record) => Answer,
): (record: Record) => Answer {
  const answers = new WeakMap<Record, Answer>();
  return (record) => {
    let answer = answers.get(record);
    if (answer === undefined) {
      answer = keptAnswer(build(record));
      answers.set(record, answer);
    }
    return answer;
  };
}

const serialize = (data: unknown): string =>
  (typeof data === 'object' && data !== null ? keptJson.get(data) : undefined) ?? JSON.stringify(data);

/**
 * Route options of the reads a mailing day hammers (the access and identity-token lookups): kept
 * out of the request log (warnings and errors still go in), and answered with their kept JSON or
 * JSON.stringify. Their answers are built by this code from typed rows, so checking each one
 * against its schema again (the zod serializer) only costs time; the schemas still describe them
 * in the OpenAPI document.
 */
export const hotReadOptions = {
  logLevel: 'warn',
  serializerCompiler: () => serialize,
} as const;
