package io.durablejournal.flink;

import io.durablejournal.flink.internal.StoreMetrics;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.DivergencePolicy;
import io.durablejournal.DurableCallable;
import io.durablejournal.NonDeterministicReplayException;
import io.durablejournal.testing.JobTimeout;
import io.durablejournal.testing.OnceFlag;
import io.durablejournal.testing.ReportingMiniCluster;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import org.apache.flink.api.common.JobID;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.metrics.Counter;
import org.apache.flink.util.ExceptionUtils;
import org.apache.flink.util.SerializedThrowable;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The divergence policy on our operators, in a real job on a MiniCluster: one record whose action
 * is not deterministic. Its first attempt calls {@code lookup-v1} and then crashes; Flink restarts
 * the job (no checkpoint: the record is read again and the store keeps the journal), and the
 * second attempt calls {@code lookup-v2} where the journal recorded {@code lookup-v1}.
 */
class DivergencePolicyMiniClusterTest {
    @RegisterExtension
    static final ReportingMiniCluster FLINK = ReportingMiniCluster.withSlots(2);

    @TempDir
    Path tmp;

    private JobClient run(String operator, DivergencePolicy policy) throws Exception {
        String crashFlag = tmp.resolve("crashed").toString();
        // The first attempt (no crash flag yet) calls lookup-v1 and crashes; later ones call lookup-v2.
        AgentAction<String, String> changing = (record, ctx) -> {
            boolean firstAttempt = !OnceFlag.isTaken(crashFlag);
            String version = firstAttempt ? "v1" : "v2";
            String found = ctx.durableExecute(DurableCallable.of("lookup-" + version, String.class, () -> "found-" + version));
            if (firstAttempt) {
                if (!OnceFlag.takeFirst(crashFlag)) {
                    throw new AssertionError("one first attempt");
                }
                throw new IllegalStateException("crash injected after the first call");
            }
            return found;
        };
        return OneKeyJob.start("divergence " + policy, operator, changing, policy, tmp.resolve("store"), "r");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {OneKeyJob.ACTION_FUNCTION, OneKeyJob.ASYNC_ACTIONS})
    @JobTimeout
    void failFailsTheJobWithTheDiff(String operator) throws Exception {
        JobClient job = run(operator, DivergencePolicy.FAIL);
        ExecutionException failed = assertThrows(ExecutionException.class, () -> job.getJobExecutionResult().get());
        NonDeterministicReplayException refused = find(failed)
                .orElseThrow(() -> new AssertionError("no NonDeterministicReplayException in " + ExceptionUtils.stringifyException(failed)));
        assertEquals("str:one key", refused.getKey());
        assertEquals(Long.valueOf(0), refused.getSequenceNumber());
        assertEquals("act", refused.getActionName());
        assertEquals(0, refused.getPosition());
        assertEquals("lookup-v1", refused.getRecordedCallId());
        assertEquals("SUCCEEDED", refused.getRecordedStatus().name());
        assertEquals("lookup-v2", refused.getNewCallId());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {OneKeyJob.ACTION_FUNCTION, OneKeyJob.ASYNC_ACTIONS})
    @JobTimeout
    void warnRunsOnAndCountsTheDivergenceInItsMetric(String operator) throws Exception {
        JobClient job = run(operator, DivergencePolicy.WARN);
        job.getJobExecutionResult().get();
        Map<Integer, Long> diverged = divergedPerAttempt(job.getJobID());
        assertEquals(Map.of(0, 0L, 1, 1L), diverged, "the second attempt's lookup-v2 diverged once");
    }

    /** The exception in the job's failure, deserialized where Flink shipped it serialized. */
    private static Optional<NonDeterministicReplayException> find(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            Throwable original = t instanceof SerializedThrowable
                    ? ((SerializedThrowable) t).deserializeError(DivergencePolicyMiniClusterTest.class.getClassLoader())
                    : t;
            Optional<NonDeterministicReplayException> found =
                    ExceptionUtils.findThrowable(original, NonDeterministicReplayException.class);
            if (found.isPresent()) {
                return found;
            }
        }
        return Optional.empty();
    }

    private static Map<Integer, Long> divergedPerAttempt(JobID job) {
        Map<Integer, Long> byAttempt = new TreeMap<>();
        FLINK.metricsPerAttempt(StoreMetrics.GROUP, job).forEach((attempt, metrics) -> {
            Counter counter = (Counter) metrics.get(JournalMetrics.CALLS_DIVERGED);
            assertTrue(counter != null, "callsDiverged is registered");
            byAttempt.put(attempt, counter.getCount());
        });
        return byAttempt;
    }
}
