package io.durablejournal;

import io.durablejournal.internal.NativeLibrary;
import io.durablejournal.internal.Utf8;
import java.util.Objects;

/**
 * What a restore does to one journal in flight, in words, from where its replay through the new
 * code stopped (spec §2.7). The rule is the native library's ({@code rust/journal/restore_plan.rs},
 * through rust/jni/restore_plan.rs), shared with the Python replayer.
 */
public final class RestorePlans {
    static {
        NativeLibrary.load();
    }

    private RestorePlans() {}

    /**
     * @param replayed how many recorded calls the replay replayed
     * @param stopKind {@code ""} (the action finished), {@code "would-run"}, {@code "diverged"} or
     *     {@code "not-replayable"} (the replay could not follow the new code: {@code failure} says why)
     * @param position where it stopped (ignored without a stop)
     * @param recordedId the recorded call there (a divergence), or null
     * @param candidateId the new code's call there, or null when it finished instead
     * @param failure the exception the action threw (class: message), or null; it wins over a stop
     *     other than a not-replayable one, whose reason it is
     */
    public static String describe(DivergencePolicy policy, int replayed, String stopKind, int position,
            String recordedId, String candidateId, String failure) {
        Objects.requireNonNull(policy, "policy");
        return Utf8.decode(describeNative(policy.number(), replayed, Utf8.encode(stopKind, "stopKind"), position,
                Utf8.encodeOrNull(recordedId, "recordedId"), Utf8.encodeOrNull(candidateId, "candidateId"),
                Utf8.encodeOrNull(failure, "failure")));
    }

    /**
     * Where a replay left the recording, in words, for a replayer's report: {@code "would run X at
     * i (not recorded; no stub)"} or {@code "diverged at i: recorded R (STATUS), candidate C"}.
     *
     * @param stopKind {@code "would-run"} (needs {@code candidateId}) or {@code "diverged"} (needs
     *     {@code recordedId})
     * @param recordedStatus the recorded slot's status at a divergence, or null
     * @param candidateId the new code's call there, or null when it finished instead
     */
    public static String describeStop(String stopKind, int position, String recordedId, String recordedStatus,
            String candidateId) {
        return Utf8.decode(describeStopNative(Utf8.encode(stopKind, "stopKind"), position, Utf8.encodeOrNull(recordedId, "recordedId"),
                Utf8.encodeOrNull(recordedStatus, "recordedStatus"), Utf8.encodeOrNull(candidateId, "candidateId")));
    }

    private static native byte[] describeStopNative(byte[] stopKind, int position, byte[] recordedId, byte[] recordedStatus,
            byte[] candidateId);

    private static native byte[] describeNative(int policy, int replayed, byte[] stopKind, int position,
            byte[] recordedId, byte[] candidateId, byte[] failure);
}
