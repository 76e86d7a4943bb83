package io.durablejournal.flinkagents.replay;

import io.durablejournal.flink.replay.ReplayCommand;
import io.durablejournal.flink.replay.ReplayReport;
import java.io.PrintStream;
import java.util.function.Supplier;
import org.apache.flink.agents.api.agents.Agent;
import org.apache.flink.agents.plan.AgentPlan;

/**
 * The Flink Agents replayer as a command for a shell or a CI step (docs/replay.md, "Flink Agents
 * actions"):
 *
 * <pre>
 * java -cp '&lt;jars&gt;' io.durablejournal.flinkagents.replay.AgentReplayerMain \
 *     (--store &lt;store-dir&gt; | --dump &lt;file&gt; | --kafka &lt;servers&gt; --topic &lt;t&gt; [--config &lt;file&gt;])
 *     --agent &lt;class&gt; [--key str:user-1] [--action name] [--limit n]
 *     [--since ms] [--until ms] [--stub tool:mail='"sent"'] [--stub llm=@answer.json] [--plan-restore WARN|CUT|FAIL]
 *     [--json] [--fail-on diverged,would-run,...]
 * </pre>
 *
 * {@code --agent} names a class with a public no-argument constructor: a Flink Agents {@code
 * Agent} (planned with the default configuration), or a {@code Supplier} of an {@code Agent}, of
 * an {@code AgentPlan}, or of an {@link AgentReplayer} (with its stubs and resources). {@code
 * --stub} answers a call the recording lacks with a JSON value read as the call's result class
 * ({@link AgentReplayer#withStubJson}); {@code --plan-restore} plans a restore of the journals in
 * flight of the {@code --store} ({@link AgentReplayer#planRestore}) instead of replaying the
 * retained actions. Exit
 * status as JournalReplayerMain's: 0 when no outcome is in {@code --fail-on} (default: every
 * outcome but unchanged), 1 when one is, 2 for bad arguments.
 */
public final class AgentReplayerMain {
    private AgentReplayerMain() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** What {@link #main} does, printing to {@code out} and {@code err}; returns the exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        return ReplayCommand.run("AgentReplayerMain", "--agent", args, out, err, AgentReplayerMain::replayer,
                AgentReplayerMain::replay);
    }

    private static ReplayReport replay(AgentReplayer candidate, ReplayCommand command) {
        AgentReplayer replayer = command.withStubs(candidate, AgentReplayer::withStubJson);
        return command.restorePolicy() == null ? replayer.replay(command.recorded().read(), command.selection())
                : replayer.planRestore(command.store(), command.restorePolicy(), command.selection());
    }

    private static AgentReplayer replayer(String className) throws ReflectiveOperationException {
        Class<?> type = Class.forName(className, true, Thread.currentThread().getContextClassLoader());
        Object made = type.getConstructor().newInstance();
        Object candidate = made instanceof Supplier ? ((Supplier<?>) made).get() : made;
        if (candidate instanceof AgentReplayer) {
            return (AgentReplayer) candidate;
        }
        if (candidate instanceof AgentPlan) {
            return AgentReplayer.of((AgentPlan) candidate, className);
        }
        if (candidate instanceof Agent) {
            return AgentReplayer.of((Agent) candidate);
        }
        throw new IllegalArgumentException(className + " is neither an Agent nor a Supplier of an Agent, an AgentPlan or an"
                + " AgentReplayer (it gave a " + (candidate == null ? "null" : candidate.getClass().getName()) + ")");
    }
}
