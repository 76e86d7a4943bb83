package io.durablejournal.flinkagents;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
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
import org.apache.flink.agents.runtime.actionstate.ActionState;
import org.apache.flink.agents.runtime.actionstate.CallResult;
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
 */
final class JournaledRunnerContext implements RunnerContext {
    private final RunnerContextImpl flinkAgents;
    private final NativeJournalContext journal;
    /**
     * Until the first call that is not a recorded hit: the calls the action recorded before (its
     * leading terminal slots, from the state the operator was served), answered in Java with no
     * native work, as the core's {@link io.durablejournal.DurableExecutionContext} over an
     * ActionState does; null once the native journal took over.
     */
    private io.durablejournal.DurableExecutionContext recorded;
    private CallRunner recordedCalls;
    /** The native journal's call runner, from the first call that is not a recorded hit. */
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
        return callsFor(Objects.requireNonNull(callable, "callable").getId()).durableExecute(new CallAdapter<>(callable));
    }

    @Override
    public <T> T durableExecuteAsync(DurableCallable<T> callable) throws Exception {
        return callsFor(Objects.requireNonNull(callable, "callable").getId()).durableExecuteAsync(new CallAdapter<>(callable));
    }

    /**
     * The call runner for a durable call with {@code id}: the recorded one while the call is a
     * recorded hit (the slot at the index is terminal and has this id), else the native journal's,
     * opened over the stored entry with its index past the hits. A recovered action thus replays
     * its recorded calls without opening the native journal, and records new ones as delta records.
     */
    private CallRunner callsFor(String id) {
        if (calls != null) {
            return calls;
        }
        if (recorded == null && !journal.isOpen()) {
            io.durablejournal.ActionState hits = journal.recordedHits() != null
                    ? recordedHits(journal.recordedHits()) : recordedHits(journal.servedState());
            if (!recordedSlots.isEmpty()) {
                recorded = new io.durablejournal.DurableExecutionContext(hits, null);
                recordedCalls = new CallRunner(recorded, flinkAgents);
            }
            // else nothing can replay from the served state (a fresh action): straight to the native journal
        }
        if (recorded != null) {
            int index = recorded.getCurrentCallIndex();
            List<io.durablejournal.CallResult> slots = recordedSlots;
            if (id != null && index < slots.size() && id.equals(slots.get(index).getFunctionId())) {
                return recordedCalls;
            }
        }
        io.durablejournal.DurableExecutionContext opened = journal.journal();
        if (recorded != null) {
            int hits = recorded.getCurrentCallIndex();
            recorded.close();
            recorded = null;
            recordedCalls = null;
            if (hits > 0) {
                opened.advanceCallIndexBy(hits);
            }
        }
        calls = new CallRunner(opened, flinkAgents);
        return calls;
    }

    /** The leading recorded slots that can replay (terminal, with a plain id), as the core's ActionState. */
    private List<io.durablejournal.CallResult> recordedSlots = Collections.emptyList();

    /** The hits the store split off the served state (already the leading replayable slots). */
    private io.durablejournal.ActionState recordedHits(List<io.durablejournal.CallResult> splitHits) {
        io.durablejournal.ActionState hits = new io.durablejournal.ActionState();
        for (io.durablejournal.CallResult hit : splitHits) {
            hits.addCallResult(hit);
        }
        recordedSlots = splitHits;
        return hits;
    }

    private io.durablejournal.ActionState recordedHits(ActionState served) {
        io.durablejournal.ActionState hits = new io.durablejournal.ActionState();
        List<io.durablejournal.CallResult> slots = new ArrayList<>();
        for (CallResult slot : served.getCallResults()) {
            String id = slot.getFunctionId();
            // A failure without its payload (a legacy record) is left to the native journal.
            boolean terminal = slot.isSuccess() || (slot.isFailure() && slot.getExceptionPayload() != null);
            if (!terminal || id == null || !(slot.getArgsDigest() == null || slot.getArgsDigest().isEmpty())
                    || !wellFormed(id)) {
                break;
            }
            io.durablejournal.CallResult hit = new io.durablejournal.CallResult(id, slot.getResultPayload(),
                    slot.isFailure() ? slot.getExceptionPayload() : null);
            hits.addCallResult(hit);
            slots.add(hit);
        }
        recordedSlots = slots;
        return hits;
    }

    /** Whether {@code id} is valid UTF-16 (no lone surrogate): the core answers only such ids from a recorded state. */
    private static boolean wellFormed(String id) {
        for (int i = 0; i < id.length(); i++) {
            char c = id.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= id.length() || !Character.isLowSurrogate(id.charAt(i + 1))) {
                    return false;
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return false;
            }
        }
        return true;
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

    /** Flink Agents' {@code DurableCallable} as the core's. */
    private static final class CallAdapter<T> implements io.durablejournal.DurableCallable<T> {
        private final DurableCallable<T> callable;

        CallAdapter(DurableCallable<T> callable) {
            this.callable = callable;
        }

        @Override
        public String getId() {
            return callable.getId();
        }

        @Override
        public Class<T> getResultClass() {
            return callable.getResultClass();
        }

        @Override
        public T call() throws Exception {
            return callable.call();
        }

        @Override
        public Callable<T> reconciler() {
            return callable.reconciler();
        }

        /** A call that is the core's durable call too ({@link AtMostOnceCall}) declares its semantics. */
        @Override
        public io.durablejournal.CallSemantics semantics() {
            return callable instanceof io.durablejournal.DurableCallable
                    ? ((io.durablejournal.DurableCallable<?>) callable).semantics() : null;
        }
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

        /** The user's Flink Agents callable's loader, not the adapter's ({@link CallAdapter} wraps every call). */
        @Override
        protected ClassLoader userClassLoader(io.durablejournal.DurableCallable<?> callable) {
            Object users = callable instanceof CallAdapter ? ((CallAdapter<?>) callable).callable : callable;
            return users.getClass().getClassLoader();
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
