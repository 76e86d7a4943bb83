package io.durablejournal.flinkagents;

import java.lang.reflect.Constructor;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.apache.flink.agents.api.context.RunnerContext;
import org.apache.flink.agents.runtime.context.RunnerContextImpl;
import org.apache.flink.agents.runtime.operator.ActionExecutionOperator;
import org.apache.flink.agents.runtime.operator.ActionExecutionOperatorFactory;

/**
 * Checks, when the operator is created, that the Flink Agents on the classpath has the shape the
 * native journal adapter was written against. The adapter overrides every public method of
 * {@code RunnerContextImpl.DurableExecutionContext} and implements every method of {@code
 * RunnerContext}; a Flink Agents that adds one (apache/flink-agents#926 adds methods to the
 * journal on main) would reach Flink Agents' own journal, or a method the adapter's context does
 * not have, behind its back. A changed operator constructor (apache/flink-agents#887 adds a
 * parameter) would fail with a {@code NoSuchMethodError} deep in Flink. Either way the job fails
 * at the start with a message naming the class and the members the adapter does not know.
 */
final class FlinkAgentsCompatibility {
    /** The Flink Agents versions the adapter is written and tested against. */
    static final String SUPPORTED_VERSIONS = "0.3.1";

    static final Set<String> JOURNAL_METHODS = set(
            "getCurrentCallIndex()",
            "getActionState()",
            "getCurrentCallResult()",
            "matchNextOrClearSubsequentCallResult(java.lang.String,java.lang.String)",
            "recordCallCompletion(java.lang.String,java.lang.String,byte[],byte[])",
            "appendPendingCall(java.lang.String,java.lang.String)",
            "finalizeCurrentCall(java.lang.String,java.lang.String,byte[],byte[])",
            "clearCallResultsFromCurrentIndexAndPersist()");

    static final Set<String> RUNNER_CONTEXT_METHODS = set(
            "sendEvent(org.apache.flink.agents.api.Event)",
            "getSensoryMemory()",
            "getShortTermMemory()",
            "getLongTermMemory()",
            "getAgentMetricGroup()",
            "getActionMetricGroup()",
            "getResource(java.lang.String,org.apache.flink.agents.api.resource.ResourceType)",
            "getConfig()",
            "getActionConfig()",
            "getActionConfigValue(java.lang.String)",
            "durableExecute(org.apache.flink.agents.api.context.DurableCallable)",
            "durableExecuteAsync(org.apache.flink.agents.api.context.DurableCallable)",
            "close()");

    static final Set<String> OPERATOR_CONSTRUCTORS = set(
            "ActionExecutionOperator(org.apache.flink.agents.plan.AgentPlan,java.lang.Boolean,"
                    + "org.apache.flink.streaming.runtime.tasks.ProcessingTimeService,"
                    + "org.apache.flink.api.common.operators.MailboxExecutor,"
                    + "org.apache.flink.agents.runtime.actionstate.ActionStateStore)");

    static final Set<String> FACTORY_CONSTRUCTORS = set(
            "ActionExecutionOperatorFactory(org.apache.flink.agents.plan.AgentPlan,java.lang.Boolean)");

    private FlinkAgentsCompatibility() {}

    /** Throws when the Flink Agents on the classpath differs from what the adapter knows. */
    static void check() {
        List<String> problems = new ArrayList<>();
        problems.addAll(unknown("public methods of " + RunnerContextImpl.DurableExecutionContext.class.getName(),
                publicInstanceMethods(RunnerContextImpl.DurableExecutionContext.class), JOURNAL_METHODS));
        problems.addAll(unknown("methods of " + RunnerContext.class.getName(), interfaceMethods(RunnerContext.class),
                RUNNER_CONTEXT_METHODS));
        problems.addAll(differing("public constructors of " + ActionExecutionOperator.class.getName(),
                publicConstructors(ActionExecutionOperator.class), OPERATOR_CONSTRUCTORS));
        problems.addAll(differing("public constructors of " + ActionExecutionOperatorFactory.class.getName(),
                publicConstructors(ActionExecutionOperatorFactory.class), FACTORY_CONSTRUCTORS));
        failIfAny(problems, flinkAgentsVersion());
    }

    /** Fails with one message listing every problem. */
    static void failIfAny(List<String> problems, String foundVersion) {
        if (!problems.isEmpty()) {
            throw new IllegalStateException("durable-journal's native journal does not know this Flink Agents ("
                    + foundVersion + "; supported: " + SUPPORTED_VERSIONS + "): " + String.join("; ", problems)
                    + ". Use a supported Flink Agents version, or a durable-journal release that supports this one");
        }
    }

    /** A problem for every member found that is not among the known ones. */
    static List<String> unknown(String what, Collection<String> found, Set<String> known) {
        Set<String> extra = new TreeSet<>(found);
        extra.removeAll(known);
        return extra.isEmpty() ? Collections.emptyList()
                : Collections.singletonList(what + " that the adapter does not know: " + String.join(", ", extra));
    }

    /** A problem when the members found are not exactly the known ones. */
    static List<String> differing(String what, Collection<String> found, Set<String> known) {
        Set<String> extra = new TreeSet<>(found);
        extra.removeAll(known);
        Set<String> missing = new TreeSet<>(known);
        missing.removeAll(found);
        if (extra.isEmpty() && missing.isEmpty()) {
            return Collections.emptyList();
        }
        return Collections.singletonList(what + " differ: found " + (extra.isEmpty() ? "none unknown" : String.join(", ", extra))
                + (missing.isEmpty() ? "" : "; missing " + String.join(", ", missing)));
    }

    static Set<String> publicInstanceMethods(Class<?> type) {
        return Arrays.stream(type.getDeclaredMethods())
                .filter(m -> Modifier.isPublic(m.getModifiers()) && !Modifier.isStatic(m.getModifiers()) && !m.isSynthetic())
                .map(FlinkAgentsCompatibility::signature)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    static Set<String> interfaceMethods(Class<?> type) {
        return Arrays.stream(type.getMethods())
                .filter(m -> !Modifier.isStatic(m.getModifiers()))
                .map(FlinkAgentsCompatibility::signature)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    static Set<String> publicConstructors(Class<?> type) {
        Set<String> found = new TreeSet<>();
        for (Constructor<?> constructor : type.getConstructors()) {
            found.add(type.getSimpleName() + parameters(constructor.getParameterTypes()));
        }
        return found;
    }

    private static String signature(Method method) {
        return method.getName() + parameters(method.getParameterTypes());
    }

    private static String parameters(Class<?>[] types) {
        return Arrays.stream(types).map(Class::getTypeName).collect(Collectors.joining(",", "(", ")"));
    }

    private static String flinkAgentsVersion() {
        Package p = ActionExecutionOperator.class.getPackage();
        String version = p == null ? null : p.getImplementationVersion();
        return version == null ? "version unknown" : "version " + version;
    }

    private static Set<String> set(String... members) {
        return Collections.unmodifiableSet(new LinkedHashSet<>(Arrays.asList(members)));
    }
}
