package io.durablejournal.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.apache.flink.api.common.JobExecutionResult;
import org.apache.flink.api.common.JobID;
import org.apache.flink.metrics.Metric;
import org.apache.flink.metrics.MetricGroup;
import org.apache.flink.runtime.metrics.scope.ScopeFormat;
import org.apache.flink.runtime.testutils.InMemoryReporter;

/** What a finished job reported: its accumulators, and its metrics as a reporter kept them. */
public final class JobResults {
    private JobResults() {}

    /** The accumulator {@code name} of the job as a number; 0 when no task added to it. */
    public static long counter(JobExecutionResult result, String name) {
        Object value = result.getAccumulatorResult(name);
        return value == null ? 0 : ((Number) value).longValue();
    }

    /**
     * The metrics of the metric groups named {@code group} of job {@code job}, by task attempt
     * number (a restarted task registers its metrics again; the reporter keeps both). Fails when an
     * attempt has two such groups: the job must run its operator on one subtask.
     */
    public static SortedMap<Integer, Map<String, Metric>> metricsPerAttempt(InMemoryReporter reporter, String group, JobID job) {
        SortedMap<Integer, Map<String, Metric>> byAttempt = new TreeMap<>();
        for (MetricGroup found : reporter.findGroups(group)) {
            Map<String, String> variables = found.getAllVariables();
            if (job.toString().equals(variables.get(ScopeFormat.SCOPE_JOB_ID))) {
                int attempt = Integer.parseInt(variables.get(ScopeFormat.SCOPE_TASK_ATTEMPT_NUM));
                Map<String, Metric> previous = byAttempt.put(attempt, reporter.getMetricsByGroup(found));
                assertEquals(null, previous, "one group per attempt");
            }
        }
        return byAttempt;
    }
}
