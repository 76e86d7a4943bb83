package io.durablejournal.flinkagents.demo;

import io.durablejournal.demo.ReplayBenchmarkRun;
import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flink.replay.ReplaySelection;
import io.durablejournal.flinkagents.DurableAgents;
import io.durablejournal.flinkagents.replay.AgentReplayer;
import io.durablejournal.store.FileStoreOptions;
import java.time.Duration;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.InputEvent;
import org.apache.flink.agents.api.OutputEvent;
import org.apache.flink.agents.api.agents.Agent;
import org.apache.flink.agents.api.context.DurableCallable;
import org.apache.flink.agents.api.context.RunnerContext;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * {@code gradle :examples:agentReplayBenchmark [-PbenchArgs='--actions 10000']}: the Flink Agents
 * counterpart of {@link io.durablejournal.demo.ReplayBenchmark}. Records a MiniCluster job of N
 * actions (default 10,000) of a Flink Agents agent on Flink Agents' own operator ({@link
 * DurableAgents}), each of 10 durable calls returning 1 KB, with retention on (group commit, so the
 * recording is not bound by fsyncs), then replays every retained action through the unchanged
 * agent with {@link AgentReplayer} and prints both times and their ratio. The recording, measured
 * in the same run, is the baseline. docs/replay.md quotes the numbers.
 */
public final class AgentReplayBenchmark {
    private AgentReplayBenchmark() {}

    /** One action on the input event: 10 calls of 1 KB, then the input and the bytes it got as output. */
    public static final class BenchAgent extends Agent {
        public BenchAgent() {
            try {
                addAction(new String[] {InputEvent.EVENT_TYPE},
                        BenchAgent.class.getMethod("answer", Event.class, RunnerContext.class));
            } catch (NoSuchMethodException e) {
                throw new IllegalStateException(e);
            }
        }

        public static void answer(Event event, RunnerContext ctx) throws Exception {
            int total = 0;
            for (int i = 0; i < ReplayBenchmarkRun.CALLS; i++) {
                total += ctx.durableExecute(new KilobyteCall("call-" + i)).length();
            }
            ctx.sendEvent(new OutputEvent(InputEvent.fromEvent(event).getInput() + ":" + total));
        }
    }

    /** A durable call whose body returns 1 KB. */
    private static final class KilobyteCall implements DurableCallable<String> {
        private final String id;

        KilobyteCall(String id) {
            this.id = id;
        }

        @Override
        public String getId() {
            return id;
        }

        @Override
        public Class<String> getResultClass() {
            return String.class;
        }

        @Override
        public String call() {
            return ReplayBenchmarkRun.KILOBYTE;
        }
    }

    public static void main(String[] args) throws Exception {
        ReplayBenchmarkRun run = ReplayBenchmarkRun.of(args, "agent-replay-benchmark");
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(1);
        FileStoreOptions options = FileStoreOptions.defaults().groupCommit(1000).retainCompleted(Duration.ofDays(1), run.actions);
        DurableAgents.connectToAgent(env.fromData(run.inputs()).keyBy(r -> r, Types.STRING), new BenchAgent(),
                        ActionStateStoreFactory.fileStores(run.dir.toString(), options))
                .sinkTo(new DiscardingSink<>());
        run.measure("Flink Agents actions", () -> env.execute("agent replay benchmark: recording"),
                () -> AgentReplayer.of(new BenchAgent()).replayStore(run.dir.resolve("subtask-0"), ReplaySelection.all()));
    }
}
