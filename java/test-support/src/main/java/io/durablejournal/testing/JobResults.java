package io.durablejournal.testing;

import org.apache.flink.api.common.JobExecutionResult;

/** What a finished job reported in its result. */
public final class JobResults {
    private JobResults() {}

    /** The accumulator {@code name} of the job as a number; 0 when no task added to it. */
    public static long counter(JobExecutionResult result, String name) {
        Object value = result.getAccumulatorResult(name);
        return value == null ? 0 : ((Number) value).longValue();
    }
}
