package io.durablejournal.flinkagents.cluster;

import io.durablejournal.demo.RequestSource;
import io.durablejournal.flink.ActionStateStoreFactory;
import io.durablejournal.flinkagents.DurableAgents;
import io.durablejournal.flinkagents.demo.AgentJob;
import io.durablejournal.flinkagents.demo.SupportRequest;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;
import org.apache.flink.agents.plan.AgentConfiguration;
import org.apache.flink.agents.plan.AgentPlan;
import org.apache.flink.agents.runtime.CompileUtils;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.KeyedStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.legacy.SinkFunction;

/**
 * The demo's Flink Agents job for a standalone cluster, submitted as a job jar (the Gradle task
 * {@code :examples:clusterJobJar} builds it: this project, the core, the Flink integration, the
 * Flink Agents adapter, Jackson and Flink Agents' runtime; Flink comes from the cluster's {@code lib/}):
 * {@code requests} {@link SupportRequest}s, keyed by user, into {@link ClusterAgent} on Flink
 * Agents' operator wired by {@link DurableAgents#connectToAgent} over file stores; each answer is
 * written to the run's files ({@link RunFiles}). Bounded: the job finishes once every request is
 * answered; with {@code --until-cancelled true} it runs on, idle, until it is cancelled.
 *
 * <pre>
 * ClusterJob --run-dir DIR [--requests N] [--crash-at I] [--checkpoint-millis MS] [--journal false]
 *            [--until-cancelled true]
 * </pre>
 *
 * With {@code --crash-at I} the source stages a failover: it emits request I only after a
 * checkpoint covering the earlier requests, answered, completed, and then holds its checkpoint
 * lock until the failover cancels it; request I's {@code resolve} waits to be killed after its
 * first calls returned. With {@code --journal false} the agent runs on Flink Agents' own wiring
 * ({@code CompileUtils.connectToAgent}) with no store, for comparison. Every process of the
 * cluster must see {@code DIR}.
 */
public final class ClusterJob {
    private ClusterJob() {}

    public static void main(String[] args) throws Exception {
        Map<String, String> options = options(args);
        RunFiles files = new RunFiles(Paths.get(required(options, "run-dir")));
        int requestCount = Integer.parseInt(options.getOrDefault("requests", "6"));
        int crashAt = Integer.parseInt(options.getOrDefault("crash-at", "-1"));
        long checkpointMillis = Long.parseLong(options.getOrDefault("checkpoint-millis", "200"));
        boolean journal = Boolean.parseBoolean(options.getOrDefault("journal", "true"));
        boolean untilCancelled = Boolean.parseBoolean(options.getOrDefault("until-cancelled", "false"));
        files.create();

        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.enableCheckpointing(checkpointMillis);
        DataStream<SupportRequest> source = env
                .addSource(new RequestSource<>(SupportRequest::number, requestCount, crashAt, crashAt, new FileStaging(files, untilCancelled)),
                        "requests", Types.POJO(SupportRequest.class))
                .setParallelism(1)
                .uid("requests");
        Map<String, Object> config = new HashMap<>();
        config.put(ClusterAgent.RUN_DIR, files.dir().toString());
        config.put(ClusterAgent.CRASH_REQUEST, crashAt >= 0 ? SupportRequest.id(crashAt) : "");
        AgentPlan plan = new AgentPlan(new ClusterAgent(), new AgentConfiguration(config));
        KeyedStream<SupportRequest, String> requests = source.keyBy(new AgentJob.ByUser(), Types.STRING);
        // Without the journal: Flink Agents' own wiring and no store (a baseline for the same agent).
        SingleOutputStreamOperator<Object> answers = journal
                ? DurableAgents.connectToAgent(requests, plan, ActionStateStoreFactory.fileStores(files.journal().toString()))
                : (SingleOutputStreamOperator<Object>) CompileUtils.connectToAgent(requests, plan);
        answers.uid("cluster-agent")
                .map(new AgentJob.AsText(), Types.STRING)
                .addSink(new ToAnswerFiles(files))
                .setParallelism(1)
                .name("answers");
        env.execute("durable-journal cluster job " + files.dir().getFileName());
    }

    private static Map<String, String> options(String[] args) {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --name value pairs, got " + String.join(" ", args));
            }
            options.put(args[i].substring(2), args[i + 1]);
        }
        return options;
    }

    private static String required(Map<String, String> options, String name) {
        String value = options.get(name);
        if (value == null) {
            throw new IllegalArgumentException("--" + name + " is required");
        }
        return value;
    }

    /** Writes each answer to the run's files, under its request id (the text before the first ':'). */
    static final class ToAnswerFiles implements SinkFunction<String> {
        private static final long serialVersionUID = 1L;
        private final RunFiles files;

        ToAnswerFiles(RunFiles files) {
            this.files = files;
        }

        @Override
        public void invoke(String answer, Context context) {
            files.writeAnswer(answer.substring(0, answer.indexOf(':')), answer);
        }
    }
}
