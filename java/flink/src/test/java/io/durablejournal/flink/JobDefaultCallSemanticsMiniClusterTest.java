package io.durablejournal.flink;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.durablejournal.CallInterruptedException;
import io.durablejournal.CallSemantics;
import io.durablejournal.DivergencePolicy;
import io.durablejournal.DurableCallable;
import io.durablejournal.testing.JobTimeout;
import io.durablejournal.testing.OnceFlag;
import io.durablejournal.testing.ReportingMiniCluster;
import java.nio.file.Path;
import org.apache.flink.core.execution.JobClient;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The job default of the call semantics on our operators ({@link
 * DurableActionFunction#withDefaultCallSemantics}, {@link DurableAsyncActions#apply(
 * org.apache.flink.streaming.api.datastream.KeyedStream, String, AgentAction,
 * org.apache.flink.api.common.typeinfo.TypeInformation, ActionStateStoreFactory, int, DivergencePolicy,
 * CallSemantics)}), in a real job on a MiniCluster: one record whose action makes {@code charge},
 * a call that declares no semantics, and {@code lookup}, declared at least once. The first body
 * run of each dies with an {@link Error} no journal records (a failover during the call); Flink
 * restarts the job, which reads the record again over the same store.
 */
class JobDefaultCallSemanticsMiniClusterTest {
    @RegisterExtension
    static final ReportingMiniCluster FLINK = ReportingMiniCluster.withSlots(2);

    @TempDir
    Path tmp;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {OneKeyJob.ACTION_FUNCTION, OneKeyJob.ASYNC_ACTIONS})
    @JobTimeout
    void underAnAtMostOnceDefaultAnUndeclaredCallIsInterruptedAndAnAtLeastOnceCallRunsAgain(String operator) throws Exception {
        String dir = tmp.toString();
        AgentAction<String, String> action = (record, ctx) -> {
            String charged;
            try {
                charged = ctx.durableExecute(DurableCallable.of("charge", String.class, () -> diesOnce(dir, "charge")));
            } catch (CallInterruptedException e) {
                OnceFlag.takeFirst(dir + "/charge-interrupted");
                charged = "interrupted";
            }
            String found = ctx.durableExecute(DurableCallable.atLeastOnce("lookup", String.class, () -> diesOnce(dir, "lookup")));
            OnceFlag.takeFirst(dir + "/done " + charged + " " + found);
            return charged + " " + found;
        };
        JobClient job = OneKeyJob.start("job default", operator, action, DivergencePolicy.WARN, CallSemantics.AT_MOST_ONCE, 2,
                tmp.resolve("store"), "r");
        job.getJobExecutionResult().get();

        assertTrue(OnceFlag.isTaken(dir + "/charge-interrupted"), "the re-run got CallInterruptedException for charge");
        assertFalse(OnceFlag.isTaken(dir + "/charge ran again"), "the undeclared call took the default: its body ran once");
        assertTrue(OnceFlag.isTaken(dir + "/lookup ran again"), "the at-least-once call ran again after the failover");
        assertTrue(OnceFlag.isTaken(dir + "/done interrupted found by lookup"), "the action finished with both answers");
    }

    /** A call's body: its first run dies during the call; a later run notes that it ran again. */
    private static String diesOnce(String dir, String call) {
        if (OnceFlag.takeFirst(dir + "/" + call + " ran")) {
            throw new Error("the TaskManager died during " + call);
        }
        OnceFlag.takeFirst(dir + "/" + call + " ran again");
        return "found by " + call;
    }
}
