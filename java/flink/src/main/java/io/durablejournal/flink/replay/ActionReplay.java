package io.durablejournal.flink.replay;

import io.durablejournal.RestorePlans;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * What replaying one recorded action through a candidate found: the action's address, how its
 * calls went (replayed from the recording, answered by a stub, or where the candidate left the
 * recording), its outputs next to the recorded ones, and the {@link Outcome}. Immutable.
 */
public final class ActionReplay {
    /** The verdict on one action, from the most to the least severe. */
    public enum Outcome {
        /** The recording cannot be replayed (no triggering event was recorded, or it does not read as the input type). */
        NOT_REPLAYABLE,
        /** The candidate made another call than the recording at a position, or finished before the recorded calls did. */
        DIVERGED,
        /** The candidate would run a call the recording does not have (no stub for it); it stopped there. */
        WOULD_RUN,
        /** The candidate threw where the recorded action completed. */
        FAILED,
        /**
         * A Flink Agents action: the candidate's action of the recorded name no longer listens to the
         * recorded event's type, so the recorded event would not trigger it (not run).
         */
        NOT_TRIGGERED,
        /**
         * A Flink Agents action: the candidate has an action that listens to a recorded event's type
         * for which nothing was recorded under its name (a new or renamed action, or a changed
         * listen list); it has no recording to replay and is not run.
         */
        NEWLY_TRIGGERED,
        /** Every call replayed (or was stubbed), but the outputs differ from the recorded ones. */
        OUTPUT_CHANGED,
        /** Every call replayed, and the outputs equal the recorded ones. */
        UNCHANGED
    }

    /** Where the candidate left the recording. */
    public static final class Stop {
        /** DIVERGED or WOULD_RUN. */
        public final Outcome kind;
        public final int position;
        /** The recorded slot's id and status there (null for WOULD_RUN: no slot). */
        public final String recordedId;
        public final String recordedStatus;
        /** The candidate's call there (null when the candidate finished instead). */
        public final String candidateId;

        private Stop(Outcome kind, int position, String recordedId, String recordedStatus, String candidateId) {
            this.kind = kind;
            this.position = position;
            this.recordedId = recordedId;
            this.recordedStatus = recordedStatus;
            this.candidateId = candidateId;
        }

        public static Stop diverged(int position, String recordedId, String recordedStatus, String candidateId) {
            return new Stop(Outcome.DIVERGED, position, recordedId, recordedStatus, candidateId);
        }

        public static Stop wouldRun(int position, String candidateId) {
            return new Stop(Outcome.WOULD_RUN, position, null, null, candidateId);
        }

        /** For people: "diverged at 1: recorded tool:a (SUCCEEDED), candidate tool:b", in the native library's words. */
        public String describe() {
            return RestorePlans.describeStop(kind == Outcome.WOULD_RUN ? "would-run" : "diverged", position, recordedId,
                    recordedStatus, candidateId);
        }
    }

    final String key;
    final long seq;
    final String actionName;
    final String planDigest;
    final Outcome outcome;
    final int recordedCalls;
    final int replayedCalls;
    final List<String> stubbedCalls;
    final Stop stop;
    final List<String> recordedOutputs;
    final List<String> candidateOutputs;
    /** Why it was not replayable, or what the candidate threw; null otherwise. */
    final String detail;
    /** What the replay gave the action's memory reads. */
    final String memory;
    final List<String> oldPaths;
    /** The memory updates recorded and the candidate's, as JSON text (empty for the project's operators). */
    final List<String> recordedMemoryUpdates;
    final List<String> candidateMemoryUpdates;

    ActionReplay(String key, long seq, String actionName, String planDigest, Outcome outcome, int recordedCalls,
            int replayedCalls, List<String> stubbedCalls, Stop stop, List<String> recordedOutputs,
            List<String> candidateOutputs, String detail, String memory, List<String> oldPaths) {
        this(key, seq, actionName, planDigest, outcome, recordedCalls, replayedCalls, stubbedCalls, stop, recordedOutputs,
                candidateOutputs, Collections.emptyList(), Collections.emptyList(), detail, memory, oldPaths);
    }

    /**
     * One action's replay, with its memory updates beside its outputs (Flink Agents actions; a
     * replayer of another kind of action builds its report with these).
     */
    public ActionReplay(String key, long seq, String actionName, String planDigest, Outcome outcome, int recordedCalls,
            int replayedCalls, List<String> stubbedCalls, Stop stop, List<String> recordedOutputs,
            List<String> candidateOutputs, List<String> recordedMemoryUpdates, List<String> candidateMemoryUpdates,
            String detail, String memory, List<String> oldPaths) {
        this.key = key;
        this.seq = seq;
        this.actionName = actionName;
        this.planDigest = planDigest;
        this.outcome = Objects.requireNonNull(outcome, "outcome");
        this.recordedCalls = recordedCalls;
        this.replayedCalls = replayedCalls;
        this.stubbedCalls = Collections.unmodifiableList(stubbedCalls);
        this.stop = stop;
        this.recordedOutputs = Collections.unmodifiableList(recordedOutputs);
        this.candidateOutputs = Collections.unmodifiableList(candidateOutputs);
        this.detail = detail;
        this.memory = memory;
        this.oldPaths = Collections.unmodifiableList(oldPaths);
        this.recordedMemoryUpdates = Collections.unmodifiableList(recordedMemoryUpdates);
        this.candidateMemoryUpdates = Collections.unmodifiableList(candidateMemoryUpdates);
    }

    /** The memory updates the recorded action made, as JSON text (empty for the project's operators). */
    public List<String> getRecordedMemoryUpdates() {
        return recordedMemoryUpdates;
    }

    /** The candidate's memory updates, as JSON text (empty when it stopped or threw). */
    public List<String> getCandidateMemoryUpdates() {
        return candidateMemoryUpdates;
    }

    /** The changes ({@code patched} ids) this recorded execution takes the old path of. */
    public List<String> getOldPaths() {
        return oldPaths;
    }

    public String getKey() {
        return key;
    }

    public long getSeq() {
        return seq;
    }

    public String getActionName() {
        return actionName;
    }

    /** The plan digest the recording carries, or null. */
    public String getPlanDigest() {
        return planDigest;
    }

    public Outcome getOutcome() {
        return outcome;
    }

    public int getRecordedCalls() {
        return recordedCalls;
    }

    /** Calls answered from the recording (nothing ran). */
    public int getReplayedCalls() {
        return replayedCalls;
    }

    /** Calls the recording lacks that a stub answered, in order. */
    public List<String> getStubbedCalls() {
        return stubbedCalls;
    }

    /** Where the candidate left the recording (DIVERGED, WOULD_RUN), or null. */
    public Stop getStop() {
        return stop;
    }

    /** The recorded output events, as JSON text. */
    public List<String> getRecordedOutputs() {
        return recordedOutputs;
    }

    /** The candidate's output events, as JSON text (empty when it stopped or threw). */
    public List<String> getCandidateOutputs() {
        return candidateOutputs;
    }

    public String getDetail() {
        return detail;
    }

    /**
     * What the action's memory reads got: "not read" (the project's operators' actions have no
     * memory); for Flink Agents actions also "rebuilt from N recorded actions of the key" or
     * "not reconstructible" (the action read memory the retained history cannot rebuild).
     */
    public String getMemory() {
        return memory;
    }

    @Override
    public String toString() {
        return "ActionReplay{" + key + " seq " + seq + " " + actionName + ": " + outcome
                + (stop == null ? "" : ", " + stop.describe()) + "}";
    }
}
