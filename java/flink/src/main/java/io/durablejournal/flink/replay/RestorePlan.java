package io.durablejournal.flink.replay;

import io.durablejournal.DivergencePolicy;
import io.durablejournal.RestorePlans;

/**
 * What a restore does to one journal in flight, in words, from where its replay through the new
 * code stopped: the policies' effects are spec §2.7's (the journal applies them on the restore;
 * the native library's {@link RestorePlans} names them for the report, the rule the Python replayer
 * asks too). Every replayer's restore plan says it in these words ({@link JournalReplayer#planRestore},
 * the Flink Agents replayer's).
 */
public final class RestorePlan {
    private RestorePlan() {}

    /**
     * What a restore under {@code policy} does to a journal in flight whose replay through the new
     * code replayed {@code replayed} recorded slots and then stopped at {@code stop} (null: it
     * completed), or threw {@code failure} (null: it did not).
     */
    public static String describe(DivergencePolicy policy, int replayed, ActionReplay.Stop stop, String failure) {
        if (stop == null) {
            return RestorePlans.describe(policy, replayed, "", -1, null, null, failure);
        }
        String kind = stop.kind == ActionReplay.Outcome.WOULD_RUN ? "would-run" : "diverged";
        return RestorePlans.describe(policy, replayed, kind, stop.position, stop.recordedId, stop.candidateId, failure);
    }

    /**
     * A journal in flight the plan cannot follow past {@code why} (what the new code asked for that
     * a replay cannot give without reaching outside) after {@code replayed} recorded slots.
     */
    public static String unplannable(DivergencePolicy policy, int replayed, String why) {
        return RestorePlans.describe(policy, replayed, "not-replayable", -1, null, null, why);
    }
}
