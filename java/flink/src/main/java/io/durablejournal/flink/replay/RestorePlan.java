package io.durablejournal.flink.replay;

import io.durablejournal.DivergencePolicy;

/**
 * What a restore does to one journal in flight, in words, from where its replay through the new
 * code stopped: the policies' effects are spec §2.7's (the journal applies them on the restore;
 * this only names them for the report).
 */
final class RestorePlan {
    private RestorePlan() {}

    static String describe(DivergencePolicy policy, int replayed, ActionReplay.Stop stop, String failure) {
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
}
