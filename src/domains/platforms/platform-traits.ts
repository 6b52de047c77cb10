/**
 * What a platform contributes to Herald's generic code as plain data, read where no Nest
 * container is at hand (module load, the request logger): its name, how to speak of it, the
 * metric of its API calls and what to mask in a logged path.
 */
export interface PlatformTraits {
  /** The `platform` of its accounts, channels and targets. */
  readonly name: string;
  /** The platform's name as people write it. */
  readonly displayName: string;
  /** What the AI is told it writes for, e.g. "<platform> channels". */
  readonly aiAudience: string;
  /** The histogram of its API calls, labelled by method (a closed set, else `other`) and outcome. */
  readonly callMetric: { name: string; help: string; methods: readonly string[] };
  /** Path segments that hold a secret, masked in request logs. */
  readonly logMasks: readonly { pattern: RegExp; replacement: string }[];
}
