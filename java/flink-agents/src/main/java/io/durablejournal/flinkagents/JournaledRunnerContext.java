package io.durablejournal.flinkagents;

import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.function.Supplier;
import org.apache.flink.agents.api.Event;
import org.apache.flink.agents.api.configuration.ReadableConfiguration;
import org.apache.flink.agents.api.context.DurableCallable;
import org.apache.flink.agents.api.context.MemoryObject;
import org.apache.flink.agents.api.context.RunnerContext;
import org.apache.flink.agents.api.memory.BaseLongTermMemory;
import org.apache.flink.agents.api.metrics.FlinkAgentsMetricGroup;
import org.apache.flink.agents.api.resource.Resource;
import org.apache.flink.agents.api.resource.ResourceType;
import org.apache.flink.agents.runtime.async.ContinuationActionExecutor;
import org.apache.flink.agents.runtime.async.ContinuationContext;
import org.apache.flink.agents.runtime.context.JavaRunnerContextImpl;
import org.apache.flink.agents.runtime.context.RunnerContextImpl;

/**
 * The {@link RunnerContext} a Java action gets under the adapter: Flink Agents' own context for
 * everything (events, memory, resources, configuration, metrics), except {@code durableExecute}
 * and {@code durableExecuteAsync}, which run on the native journal with the semantics of {@link
 * io.durablejournal.RunnerContextImpl} (spec §2): a recorded {@code null} replays as {@code null},
 * a recorded failure is rethrown as its own class where that class has a {@code (String)}
 * constructor, a PENDING slot runs the call's reconciler, and a slot matches by the call's id.
 * {@code durableExecuteAsync} runs the call's body through Flink Agents' continuation executor,
 * as Flink Agents does (on JDK 21 the action yields the mailbox; before, it runs in place).
 * A Flink Agents version whose actions expect more of their context subclasses it in its shim
 * ({@link FlinkAgentsShim#runnerContext}).
 */
class JournaledRunnerContext implements RunnerContext, Patches.PatchedContext {
    private final RunnerContextImpl flinkAgents;
    private final NativeJournalContext journal;
    /** The call runner over the action's journal ({@link NativeJournalContext#journal()}), from the first durable call. */
    private CallRunner calls;

    JournaledRunnerContext(RunnerContextImpl flinkAgents, NativeJournalContext journal) {
        this.flinkAgents = Objects.requireNonNull(flinkAgents, "flinkAgents");
        this.journal = Objects.requireNonNull(journal, "journal");
    }

    /** Flink Agents' own context, which this one delegates to. */
    RunnerContextImpl flinkAgentsContext() {
        return flinkAgents;
    }

    @Override
    public <T> T durableExecute(DurableCallable<T> callable) throws Exception {
        return calls().durableExecute(CoreCallables.of(callable));
    }

    @Override
    public <T> T durableExecuteAsync(DurableCallable<T> callable) throws Exception {
        return calls().durableExecuteAsync(CoreCallables.of(callable));
    }

    /** The native journal decides: a marker slot recorded (new execution) or found, or another call's slot (old path). */
    @Override
    public boolean patched(String changeId) {
        return calls().patched(changeId);
    }

    /**
     * The core's call runner over the action's journal, which answers the recorded hits and opens
     * the native journal at the first call that is not one of them: a recovered action thus
     * replays its recorded calls without opening it, and records new ones as delta records.
     */
    private CallRunner calls() {
        if (calls == null) {
            calls = new CallRunner(journal.journal(), flinkAgents);
            calls.setDefaultCallSemantics(journal.defaultCallSemantics());
        }
        return calls;
    }

    @Override
    public void sendEvent(Event event) {
        flinkAgents.sendEvent(event);
    }

    @Override
    public MemoryObject getSensoryMemory() throws Exception {
        return flinkAgents.getSensoryMemory();
    }

    @Override
    public MemoryObject getShortTermMemory() throws Exception {
        return flinkAgents.getShortTermMemory();
    }

    @Override
    public BaseLongTermMemory getLongTermMemory() throws Exception {
        return flinkAgents.getLongTermMemory();
    }

    @Override
    public FlinkAgentsMetricGroup getAgentMetricGroup() {
        return flinkAgents.getAgentMetricGroup();
    }

    @Override
    public FlinkAgentsMetricGroup getActionMetricGroup() {
        return flinkAgents.getActionMetricGroup();
    }

    @Override
    public Resource getResource(String name, ResourceType type) throws Exception {
        return flinkAgents.getResource(name, type);
    }

    @Override
    public ReadableConfiguration getConfig() {
        return flinkAgents.getConfig();
    }

    @Override
    public Map<String, Object> getActionConfig() {
        return flinkAgents.getActionConfig();
    }

    @Override
    public Object getActionConfigValue(String key) {
        return flinkAgents.getActionConfigValue(key);
    }

    @Override
    public void close() throws Exception {
        flinkAgents.close();
    }

    /**
     * The core's {@link io.durablejournal.RunnerContextImpl} with Flink Agents' way of running an
     * async call: its continuation executor, with the action task's continuation context.
     */
    private static final class CallRunner extends io.durablejournal.RunnerContextImpl {
        private final RunnerContextImpl flinkAgents;

        CallRunner(io.durablejournal.DurableExecutionContext journal, RunnerContextImpl flinkAgents) {
            super(journal, Runnable::run);
            this.flinkAgents = flinkAgents;
        }

        /** The user's Flink Agents callable's loader, not the adapter's ({@link CoreCallables} wraps every call). */
        @Override
        protected ClassLoader userClassLoader(io.durablejournal.DurableCallable<?> callable) {
            return CoreCallables.user(callable).getClass().getClassLoader();
        }

        @Override
        protected <T> T runAsync(Callable<T> body) throws Exception {
            ContinuationActionExecutor executor = null;
            ContinuationContext continuation = null;
            if (flinkAgents instanceof JavaRunnerContextImpl) {
                executor = ((JavaRunnerContextImpl) flinkAgents).getContinuationExecutor();
                continuation = ((JavaRunnerContextImpl) flinkAgents).getContinuationContext();
            }
            if (executor == null || continuation == null) {
                // As Flink Agents: without a continuation the call runs in place.
                return body.call();
            }
            Supplier<T> supplier = () -> {
                try {
                    return body.call();
                } catch (Exception e) {
                    throw new CallFailed(e);
                }
            };
            try {
                return executor.executeAsync(continuation, supplier);
            } catch (CallFailed e) {
                throw (Exception) e.getCause();
            }
        }
    }

    /** Carries a call's checked exception through the continuation executor's {@code Supplier}. */
    private static final class CallFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        CallFailed(Exception cause) {
            super(cause);
        }
    }
}
