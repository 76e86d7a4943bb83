package io.durablejournal.flink.replay;

import io.durablejournal.DivergencePolicy;

/**
 * What a restore does to one journal in flight, in words, from where its replay through the new
 * code stopped: the policies' effects are spec §2.7's (the journal applies them on the restore;
 * this only names them for the report). Every replayer's restore plan says it in these words
 * ({@link JournalReplayer#planRestore}, the Flink Agents replayer's).
 */
public final class RestorePlan {
    private RestorePlan() {}

    /**
     * What a restore under {@code policy} does to a journal in flight whose replay through the new
     * code replayed {@code replayed} recorded slots and then stopped at {@code stop} (null: it
     * completed), or threw {@code failure} (null: it did not).
     */
    public static String describe(DivergencePolicy policy, int replayed, ActionReplay.Stop stop, String failure) {
        String replays = "a restore replays " + replayed + " recorded call" + (replayed == 1 ? "" : "s");
        if (failure != null) {
            return replays + ", then the action throws " + failure;
        }
        if (stop == null) {
            return replays + " and completes without running a call";
        }
        if (stop.kind == ActionReplay.Outcome.WOULD_RUN) {
            return replays + ", then runs " + stop.candidateId + " at " + stop.position + " and what follows";
        }
        String difference = "at " + stop.position + " (recorded " + stop.recordedId + ", new code "
                + (stop.candidateId == null ? "finishes" : stop.candidateId) + ")";
        switch (policy) {
            case FAIL:
                return replays + ", then fails the task " + difference + ": NON_DETERMINISTIC_REPLAY";
            case WARN:
                return replays + ", then cuts the journal " + difference + ", logs and counts it (callsDiverged)"
                        + (stop.candidateId == null ? "" : ", and runs " + stop.candidateId + " and what follows");
            default:
                return replays + ", then cuts the journal " + difference
                        + (stop.candidateId == null ? "" : " and runs " + stop.candidateId + " and what follows");
        }
    }

    /**
     * A journal in flight the plan cannot follow past {@code why} (what the new code asked for that
     * a plan cannot give without reaching outside) after {@code replayed} recorded slots.
     */
    public static String unplannable(int replayed, String why) {
        return replays(replayed) + ", then the plan cannot follow the action: " + why;
    }

    private static String replays(int replayed) {
        return "a restore replays " + replayed + " recorded call" + (replayed == 1 ? "" : "s");
    }
}
