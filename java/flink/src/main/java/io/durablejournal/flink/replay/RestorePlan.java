package io.durablejournal.flink.replay;

import io.durablejournal.DivergencePolicy;
import io.durablejournal.RestorePlans;

/**
 * What a restore does to one journal in flight, in words, from where its replay through the new
 * code stopped: the policies' effects are spec §2.7's (the journal applies them on the restore;
 * the native library's {@link RestorePlans} names them for the report).
 */
final class RestorePlan {
    private RestorePlan() {}

    static String describe(DivergencePolicy policy, int replayed, ActionReplay.Stop stop, String failure) {
        if (stop == null) {
            return RestorePlans.describe(policy, replayed, "", -1, null, null, failure);
        }
        String kind = stop.kind == ActionReplay.Outcome.WOULD_RUN ? "would-run" : "diverged";
        return RestorePlans.describe(policy, replayed, kind, stop.position, stop.recordedId, stop.candidateId, failure);
    }
}
