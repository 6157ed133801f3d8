/**
 * The blob keys of a run's live view and recording: the worker writes them (containers/worker),
 * the agent surface reads them (the live view and the recording routes). Step artifacts need no
 * names: they are content-addressed (contentKey) and their keys stored on the step row.
 */

/** Where the worker keeps the newest frame of a run's browser for the live view. */
export const liveFrameKey = (runId: string) => `live_${runId}`;
/** Where the worker keeps a recorded run's frame list (JSON: RecordedFrame[]). */
export const recordingKey = (runId: string) => `rec_${runId}`;

/** One frame of a recording, in the list stored at recordingKey. */
export interface RecordedFrame {
  /** Milliseconds since the recording started. */
  at: number;
  /** Blob key of the JPEG. */
  key: string;
}
