package io.durablejournal.demo;

import io.durablejournal.DurableCallable;
import io.durablejournal.RunnerContextImpl;
import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flink.AgentAction;
import io.durablejournal.flink.DurableActionFunction;
import io.durablejournal.flink.replay.JournalReplayer;
import io.durablejournal.flink.replay.ReplayCandidate;
import io.durablejournal.flink.replay.ReplaySelection;
import io.durablejournal.store.FileStoreOptions;
import java.time.Duration;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * {@code gradle :examples:replayBenchmark [-PbenchArgs='--actions 10000']}: records a MiniCluster
 * job of N actions (default 10,000), each of 10 durable calls returning 1 KB, with retention on
 * (group commit, so the recording is not bound by fsyncs), then replays every recorded action
 * through the unchanged action and prints both times and their ratio. The recording, measured in
 * the same run, is the baseline. docs/replay.md quotes the numbers.
 */
public final class ReplayBenchmark {
    private ReplayBenchmark() {}

    static String action(String input, RunnerContextImpl ctx) throws Exception {
        int total = 0;
        for (int i = 0; i < ReplayBenchmarkRun.CALLS; i++) {
            total += ctx.durableExecute(DurableCallable.of("call-" + i, String.class, () -> ReplayBenchmarkRun.KILOBYTE)).length();
        }
        return input + ":" + total;
    }

    public static void main(String[] args) throws Exception {
        ReplayBenchmarkRun run = ReplayBenchmarkRun.of(args, "replay-benchmark");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        FileStoreOptions options = FileStoreOptions.defaults().groupCommit(1000).retainCompleted(Duration.ofDays(1), run.actions);
        AgentAction<String, String> action = ReplayBenchmark::action;
        env.fromData(run.inputs())
                .keyBy(r -> r, Types.STRING)
                .process(new DurableActionFunction<String, String, String>("bench", action, String.class,
                        ActionStateStoreFactory.fileStores(run.dir.toString(), options)), Types.STRING)
                .sinkTo(new DiscardingSink<>());
        run.measure("actions", () -> env.execute("replay benchmark: recording"),
                () -> JournalReplayer.of(ReplayCandidate.of("bench", action, String.class, String.class))
                        .replayStore(run.dir.resolve("subtask-0"), ReplaySelection.all()));
    }
}
